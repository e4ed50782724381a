package io.blackboard.operator;

import io.blackboard.worker.WorkerState;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
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
class OperatorController {

    private final OperatorService operator;

    OperatorController(OperatorService operator) {
        this.operator = operator;
    }

    @GetMapping("/workers")
    List<OperatorWorker> workers(@RequestParam(required = false) @Nullable String state) {
        return operator.workers(state == null ? null : WorkerState.parse(state));
    }

    @GetMapping("/failures")
    List<Failure> failures(@RequestParam(required = false) @Nullable String reason,
            @RequestParam(required = false) @Nullable UUID functionBlockId,
            @RequestParam(defaultValue = "50") @Min(1) @Max(500) int limit) {
        return operator.failures(reason, functionBlockId, limit);
    }
}
