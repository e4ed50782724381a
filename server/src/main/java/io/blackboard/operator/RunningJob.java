package io.blackboard.operator;

import java.time.OffsetDateTime;
import java.util.UUID;

/** A job a worker holds now, with the progress it last reported (null: none yet). */
record RunningJob(UUID jobId, UUID functionBlockId, String functionBlock, String version, int attempt,
        UUID workerId, String workerName, OffsetDateTime polledAt, OffsetDateTime deadline, Integer progressPercent,
        String progressMessage, OffsetDateTime progressAt) {
}
