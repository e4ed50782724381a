package io.blackboard.worker;

import io.swagger.v3.oas.annotations.media.Schema;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;

/**
 * A worker as the registry shows it ({@code version}: the worker's own; {@code sdkName} and
 * {@code sdkVersion}: the worker SDK it runs, as it said at registration). {@code deaf}: it pings but has not polled for
 * {@code BLACKBOARD_DEAF_AFTER_MS} while PENDING jobs it could take wait.
 */
public record WorkerView(UUID id, @Schema(example = "cisco-worker") String name,
        @Schema(example = "site-a-01") String hostname, @Schema(example = "10.0.0.7") String ip,
        @Schema(example = "4242") Integer pid, @Schema(example = "1.4.0") String version,
        @Schema(example = "blackboard-python") String sdkName, @Schema(example = "0.1.0") String sdkVersion,
        @Schema(example = "{\"site\": \"a\"}") Map<String, String> labels, int concurrency, WorkerState state, Directive directive,
        OffsetDateTime registeredAt, OffsetDateTime lastSeenAt, OffsetDateTime stateChangedAt,
        OffsetDateTime lastPolledAt, OffsetDateTime deletedAt, long heldJobs, boolean deaf) {
}
