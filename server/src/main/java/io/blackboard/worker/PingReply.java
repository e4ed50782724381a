package io.blackboard.worker;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/** What a heartbeat learns: its state, the operator's directive, and the jobs to stop. */
record PingReply(WorkerState state, Directive directive, OffsetDateTime serverTime, long pingIntervalMs,
        List<UUID> cancelJobIds) {
}
