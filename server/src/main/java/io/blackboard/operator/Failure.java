package io.blackboard.operator;

import com.fasterxml.jackson.annotation.JsonRawValue;
import java.time.OffsetDateTime;
import java.util.UUID;

/** A job that ended in FAILURE: what, where, why. {@code error} is passed through as stored. */
record Failure(UUID jobId, UUID functionBlockId, String functionBlock, String version, String type, int attempt,
        int maxAttempts, UUID workerId, String workerName, String failureReason, @JsonRawValue String error,
        String correlationId, OffsetDateTime createdAt, OffsetDateTime polledAt, OffsetDateTime pushedAt) {
}
