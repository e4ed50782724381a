package io.blackboard.worker;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A worker as its row reads, for the registry's list and detail queries ({@code labels}: the
 * JSON text; {@code heldJobs}: its POLLED jobs). {@link WorkerDirectory} turns it into a
 * {@link WorkerView}.
 */
record WorkerRow(UUID id, String name, String hostname, String ip, Integer pid, String version, String sdkName,
        String sdkVersion, String labels, int concurrency, WorkerState state, Directive directive,
        OffsetDateTime registeredAt, OffsetDateTime lastSeenAt, OffsetDateTime stateChangedAt,
        OffsetDateTime lastPolledAt, OffsetDateTime deletedAt, long heldJobs) {
}
