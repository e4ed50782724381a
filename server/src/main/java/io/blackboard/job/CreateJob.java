package io.blackboard.job;

import io.blackboard.functionblock.RetryPolicy;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;
import tools.jackson.databind.JsonNode;

/**
 * One job as the engine writes it. Everything else about a job is the server's. The function
 * block is named by {@code functionBlockId}, or by {@code functionBlockName} and
 * {@code functionBlockVersion} (a version or a {@link io.blackboard.functionblock.VersionRange
 * range}; none: any), the newest registered match ({@link BlockNames}). {@code runAt}
 * (a time) or {@code delayMs} (from the database's now) schedules it: PENDING, but not claimed
 * before then. {@code retryPolicy} runs it again after a reported failure (else its function
 * block's policy, if any). {@code executionTimeoutMs} bounds how long one claim of it may run
 * in all, lease extensions or not (else its function block's, if any).
 */
record CreateJob(
        UUID functionBlockId,
        @Size(min = 1, max = 200) String functionBlockName,
        @Size(min = 1, max = 100) String functionBlockVersion,
        @NotNull JobType type,
        JsonNode payload,
        @Schema(defaultValue = "0") @Min(-1_000_000) @Max(1_000_000) Integer priority,
        @Schema(defaultValue = "1", description = "Without a retryPolicy: attempts in all")
        @Min(1) @Max(100) Integer maxAttempts,
        @Size(max = 64) Map<@NotBlank @Size(max = 100) String, @NotNull @Size(max = 500) String> selector,
        @Size(max = 200) String correlationId,
        @Size(min = 1, max = 200) String idempotencyKey,
        OffsetDateTime runAt,
        @Min(0) @Max(MAX_DELAY_MS) Long delayMs,
        @Valid RetryPolicy retryPolicy,
        @Min(1) @Max(MAX_EXECUTION_TIMEOUT_MS) Long executionTimeoutMs) {

    /** The same create, for the function block with this id. */
    CreateJob withFunctionBlockId(UUID id) {
        return new CreateJob(id, functionBlockName, functionBlockVersion, type, payload, priority, maxAttempts,
                selector, correlationId, idempotencyKey, runAt, delayMs, retryPolicy, executionTimeoutMs);
    }

    /** The longest execution timeout: 31 days. */
    static final long MAX_EXECUTION_TIMEOUT_MS = 31L * 24 * 3600 * 1000;
    /** The furthest ahead a job may be scheduled by delay: a year. */
    static final long MAX_DELAY_MS = 366L * 24 * 3600 * 1000;
}
