package io.blackboard.job;

import java.time.OffsetDateTime;
import java.util.UUID;

/** One line of a job's audit trail. */
record JobEvent(long id, EventKind kind, int attempt, UUID workerId, String actor, String detail, OffsetDateTime at) {
}
