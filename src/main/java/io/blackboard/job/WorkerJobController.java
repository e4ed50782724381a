package io.blackboard.job;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.UUID;
import org.springframework.lang.Nullable;
import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The worker's endpoints (seed 001): poll for jobs, push results. */
@RestController
class WorkerJobController {

    private final ClaimService claims;

    WorkerJobController(ClaimService claims) {
        this.claims = claims;
    }

    @PostMapping("/blackboard/job")
    @PreAuthorize("@workerAccess.mayActAs(#request.workerId())")
    List<JobView> poll(@Valid @RequestBody PollRequest request) throws InterruptedException {
        return claims.poll(request);
    }

    @PostMapping("/blackboard/job/result")
    @PreAuthorize("@workerAccess.mayActAs(#request.workerId())")
    JobView push(@Valid @RequestBody PushRequest request) {
        return claims.push(request);
    }

    /** Many pushes of one worker at once; each item is answered with its own status. */
    @PostMapping("/blackboard/job/results")
    @PreAuthorize("@workerAccess.mayActAsAll(#requests.![workerId()])")
    List<PushOutcome> pushBatch(@RequestBody @Size(min = 1, max = 1000) List<@Valid @NotNull PushRequest> requests) {
        return claims.pushBatch(requests);
    }

    @GetMapping("/workers/{id}/jobs")
    List<JobView> ofWorker(@PathVariable UUID id, @RequestParam(required = false) @Nullable String status,
            @RequestParam(defaultValue = "100") @Min(1) @Max(1000) int limit) {
        return claims.ofWorker(id, status == null ? null : JobStatus.parse(status), limit);
    }
}
