package io.blackboard.operator;

import com.fasterxml.jackson.annotation.JsonRawValue;
import io.blackboard.worker.WorkerView;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/** A function block as the dashboard names it. */
record FunctionBlockRef(UUID id, String name, String version) {
}

/** A worker and the function blocks it registered. */
record OperatorWorker(WorkerView worker, List<FunctionBlockRef> functionBlocks) {
}

/** A job that ended in FAILURE: what, where, why. {@code error} is passed through as stored. */
record Failure(UUID jobId, UUID functionBlockId, String functionBlock, String version, String type, int attempt,
        int maxAttempts, UUID workerId, String workerName, String failureReason, @JsonRawValue String error,
        String correlationId, OffsetDateTime createdAt, OffsetDateTime polledAt, OffsetDateTime pushedAt) {
}
