package io.blackboard.worker;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** {@code POST /workers/register}: what a worker may say about itself, and nothing server-owned. */
record RegisterWorker(
        @NotBlank @Size(max = 200) String name,
        @Size(max = 255) String hostname,
        @Size(max = 64) String ip,
        @PositiveOrZero Integer pid,
        @Size(max = 100) String version,
        @Size(max = 64) Map<@NotBlank @Size(max = 100) String, @NotNull @Size(max = 500) String> labels,
        @Min(1) @Max(10000) Integer concurrency,
        @Size(min = 1, max = 100) String sdkName,
        @Size(min = 1, max = 100) String sdkVersion) {

    int concurrencyOrDefault() {
        return concurrency == null ? 1 : concurrency;
    }

    Map<String, String> labelsOrEmpty() {
        return labels == null ? Map.of() : labels;
    }
}

/**
 * The answer to registration: the worker, the token every later call for it must carry, and
 * what a client adapts to: the server's version and API version, the heartbeat interval, the
 * orphan grace (how long after a lost poll answer a ping releases its claims) and the longest
 * poll wait.
 */
record RegisteredWorker(@JsonUnwrapped WorkerView worker, String token, String serverVersion, String apiVersion,
        long pingIntervalMs, long orphanGraceMs, int maxPollWaitMs) {
}

/** {@code POST /workers/{id}/ping} body, optional. */
record PingRequest(@Size(max = 10000) List<@NotNull UUID> activeJobIds) {
}

/** What a heartbeat learns: its state, the operator's directive, and the jobs to stop. */
record PingReply(WorkerState state, Directive directive, OffsetDateTime serverTime, long pingIntervalMs,
        List<UUID> cancelJobIds) {
}

record DirectiveRequest(@NotNull Directive directive) {
}

/** The directive set, and what it leaves stranded (function blocks with PENDING jobs no one else will run). */
record DirectiveReply(UUID workerId, Directive directive, WorkerState state, List<String> warnings) {
}

record CleanupResult(int deleted) {
}
