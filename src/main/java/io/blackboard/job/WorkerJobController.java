package io.blackboard.job;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.util.List;
import java.util.UUID;
import org.springframework.lang.Nullable;
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
    List<JobView> poll(@Valid @RequestBody PollRequest request) throws InterruptedException {
        return claims.poll(request);
    }

    @PostMapping("/blackboard/job/result")
    JobView push(@Valid @RequestBody PushRequest request) {
        return claims.push(request);
    }

    @GetMapping("/workers/{id}/jobs")
    List<JobView> ofWorker(@PathVariable UUID id, @RequestParam(required = false) @Nullable String status,
            @RequestParam(defaultValue = "100") @Min(1) @Max(1000) int limit) {
        return claims.ofWorker(id, status == null ? null : JobStatus.parse(status), limit);
    }
}
