package io.blackboard.job;

import io.blackboard.functionblock.RetryPolicy;
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
 * One job as the engine writes it. Everything else about a job is the server's. {@code runAt}
 * (a time) or {@code delayMs} (from the database's now) schedules it: PENDING, but not claimed
 * before then. {@code retryPolicy} runs it again after a reported failure (else its function
 * block's policy, if any).
 */
record CreateJob(
        @NotNull UUID functionBlockId,
        @NotNull JobType type,
        JsonNode payload,
        @Min(-1_000_000) @Max(1_000_000) Integer priority,
        @Min(1) @Max(100) Integer maxAttempts,
        @Size(max = 64) Map<@NotBlank @Size(max = 100) String, @NotNull @Size(max = 500) String> selector,
        @Size(max = 200) String correlationId,
        @Size(min = 1, max = 200) String idempotencyKey,
        OffsetDateTime runAt,
        @Min(0) @Max(MAX_DELAY_MS) Long delayMs,
        @Valid RetryPolicy retryPolicy) {

    /** The furthest ahead a job may be scheduled by delay: a year. */
    static final long MAX_DELAY_MS = 366L * 24 * 3600 * 1000;
}
