package io.blackboard.operator;

import io.blackboard.worker.WorkerState;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.UUID;
import org.springframework.lang.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The JSON the dashboard polls, beside {@code GET /function-blocks}. */
@RestController
@RequestMapping("/operator")
@Tag(name = "Operator", description = "The views behind the dashboard at /")
class OperatorController {

    private final OperatorService operator;
    private final OperatorSearch search;

    OperatorController(OperatorService operator, OperatorSearch search) {
        this.operator = operator;
        this.search = search;
    }

    @Operation(summary = "Workers with the function blocks they serve", description = "Live workers in "
            + "registration order, with flags (deaf) and held jobs; state= filters (any case).")
    @GetMapping("/workers")
    List<OperatorWorker> workers(@RequestParam(required = false) @Nullable String state) {
        return operator.workers(state == null ? null : WorkerState.parse(state));
    }

    @Operation(summary = "Jobs running now", description = "POLLED jobs, the nearest deadline first, with "
            + "their worker and the progress it last reported.")
    @GetMapping("/running")
    List<RunningJob> running(@RequestParam(defaultValue = "50") @Min(1) @Max(500) int limit) {
        return operator.running(limit);
    }

    @Operation(summary = "Recent failures", description = "FAILURE jobs, newest first, with block, worker, reason "
            + "(WORKER_REPORTED, STUCK_TIMEOUT, WORKER_OFFLINE, WORKER_DELETED) and error; reason= and "
            + "functionBlockId= filter.")
    @GetMapping("/failures")
    List<Failure> failures(@RequestParam(required = false) @Nullable String reason,
            @RequestParam(required = false) @Nullable UUID functionBlockId,
            @RequestParam(defaultValue = "50") @Min(1) @Max(500) int limit) {
        return operator.failures(reason, functionBlockId, limit);
    }

    @Operation(summary = "Search jobs and workers", description = "q is read as each form it can be: a UUID "
            + "finds the job or the worker with that id; key=value the workers whose labels contain the pair; "
            + "other text the jobs of that correlation id (exact), the workers whose name starts with it (any "
            + "case) and, when it names a failure reason (STUCK_TIMEOUT, any case), the latest jobs that failed "
            + "with it. At most limit jobs and limit workers, each with matchedBy: the form that found it. "
            + "Deleted workers are found too, after live ones.")
    @ApiResponse(responseCode = "200", description = "The jobs and the workers found (empty lists when none)")
    @GetMapping("/search")
    SearchResult search(@RequestParam @Size(max = 200) String q,
            @RequestParam(defaultValue = "20") @Min(1) @Max(100) int limit) {
        return search.search(q, limit);
    }
}
