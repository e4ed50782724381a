package io.blackboard.job;

import com.fasterxml.jackson.annotation.JsonRawValue;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A job, whole. JSON documents are passed through as stored. A PENDING job that may not be
 * claimed before {@code runAt} is {@code scheduled}; {@code errors} are the reported failures of
 * every attempt, oldest first. {@code executionTimeoutMs}: how long one claim may run in all.
 * {@code progress*}: what its worker last reported (kept after the job ends).
 */
record JobView(UUID id, UUID functionBlockId, JobType type, JobStatus status, @JsonRawValue String payload,
        int priority, int maxAttempts, int attempt, UUID workerId, @JsonRawValue String selector,
        String correlationId, String idempotencyKey, OffsetDateTime createdAt, OffsetDateTime polledAt,
        OffsetDateTime deadline, OffsetDateTime pushedAt, Outcome outcome, FailureReason failureReason,
        @JsonRawValue String result, @JsonRawValue String acquires, @JsonRawValue String dbUpdates,
        @JsonRawValue String error, boolean scheduled, OffsetDateTime runAt, @JsonRawValue String retryPolicy,
        @JsonRawValue String errors, Long executionTimeoutMs, Integer progressPercent, String progressMessage,
        OffsetDateTime progressAt) {
}
