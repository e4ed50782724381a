package io.blackboard.operator;

import com.fasterxml.jackson.annotation.JsonRawValue;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * What a search found: jobs and workers, each saying which form of the query matched it
 * ({@code matchedBy}: id, correlationId, failureReason, name or label).
 */
record SearchResult(String query, List<JobHit> jobs, List<WorkerHit> workers) {

    /** A job found, enough to list it and link to its page. */
    record JobHit(UUID id, UUID functionBlockId, String functionBlock, String version, String type, String status,
            String outcome, String failureReason, int attempt, UUID workerId, String correlationId,
            OffsetDateTime createdAt, OffsetDateTime pushedAt, String matchedBy) {
    }

    /** A worker found, deleted ones too ({@code deletedAt} set). {@code labels} is passed through as stored. */
    record WorkerHit(UUID id, String name, String hostname, String state, String directive,
            @JsonRawValue String labels, OffsetDateTime registeredAt, OffsetDateTime lastSeenAt,
            OffsetDateTime deletedAt, String matchedBy) {
    }
}
