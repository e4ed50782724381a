package io.blackboard.job;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.lang.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Dead letters: listed for the engine and operators, re-run or discarded by operators. */
@RestController
@RequestMapping("/blackboard/dead-letters")
@Tag(name = "Dead letters", description = "Jobs whose final reported failure their retry policy parked")
class DeadLetterController {

    private final DeadLetters deadLetters;

    DeadLetterController(DeadLetters deadLetters) {
        this.deadLetters = deadLetters;
    }

    /** Which dead letters to run again: these ids, or every one of a block or correlation id. */
    record RerunRequest(@Size(min = 1, max = 1000) List<UUID> jobIds, UUID functionBlockId,
            @Size(min = 1, max = 200) String correlationId) {
    }

    @Operation(summary = "List dead letters", description = "PARKED jobs, with their error history, in creation "
            + "order; filter by function block or correlation id; page with 'next' passed back as 'after'.")
    @GetMapping
    JobPage list(@RequestParam(required = false) @Nullable UUID functionBlockId,
            @RequestParam(required = false) @Nullable String correlationId,
            @RequestParam(required = false) @Nullable String after,
            @RequestParam(defaultValue = "100") @Min(1) @Max(1000) int limit) {
        return deadLetters.list(functionBlockId, correlationId, after, limit);
    }

    @Operation(summary = "Run a dead letter again", description = "A new attempt, PENDING, with its retry "
            + "policy's attempts again; its errors and events are kept.")
    @ApiResponse(responseCode = "200", description = "The job, PENDING")
    @ApiResponse(responseCode = "409", description = "The job is not parked")
    @PostMapping("/{id}/rerun")
    JobView rerun(@PathVariable UUID id) {
        return deadLetters.rerun(id);
    }

    @Operation(summary = "Run many dead letters again", description = "These jobIds, or every dead letter of a "
            + "function block or correlation id; answers how many.")
    @PostMapping("/rerun")
    Map<String, Integer> rerunMany(@Valid @RequestBody RerunRequest request) {
        return Map.of("rerun", deadLetters.rerun(new DeadLetters.Selection(request.jobIds(),
                request.functionBlockId(), request.correlationId())));
    }

    @Operation(summary = "Discard a dead letter", description = "It ends as the FAILURE it parked instead of, "
            + "and reaches the result feed.")
    @ApiResponse(responseCode = "200", description = "The job, PUSHED with its FAILURE")
    @ApiResponse(responseCode = "409", description = "The job is not parked")
    @PostMapping("/{id}/discard")
    JobView discard(@PathVariable UUID id) {
        return deadLetters.discard(id);
    }
}
