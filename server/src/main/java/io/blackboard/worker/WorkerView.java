package io.blackboard.worker;

import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;

/**
 * A worker as the registry shows it ({@code version}: the worker's own; {@code sdkName} and
 * {@code sdkVersion}: the worker SDK it runs, as it said at registration). {@code deaf}: it pings but has not polled for
 * {@code BLACKBOARD_DEAF_AFTER_MS} while PENDING jobs it could take wait.
 */
public record WorkerView(UUID id, String name, String hostname, String ip, Integer pid, String version,
        String sdkName, String sdkVersion, Map<String, String> labels, int concurrency, WorkerState state, Directive directive,
        OffsetDateTime registeredAt, OffsetDateTime lastSeenAt, OffsetDateTime stateChangedAt,
        OffsetDateTime lastPolledAt, OffsetDateTime deletedAt, long heldJobs, boolean deaf) {
}
