package io.blackboard.sdk;

import io.blackboard.sdk.internal.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A job to create with {@link BlackboardEngine#createJob}. Immutable; each method returns a copy.
 *
 * <pre>{@code
 * NewJob.of(blockId, JobType.EXECUTE).payload(Map.of("host", "r1")).idempotencyKey("wf-42/backup-r1")
 * NewJob.byName("configBackup", "^1.2", JobType.EXECUTE).payload(Map.of("host", "r1"))
 *         .delay(Duration.ofMinutes(5)).executionTimeout(Duration.ofMinutes(10))
 *         .retryPolicy(RetryPolicy.defaults().maxAttempts(5).nonRetryableErrors("AUTH_*"))
 * }</pre>
 */
public final class NewJob {

    private final Map<String, Object> json;

    private NewJob(Map<String, Object> json) {
        this.json = json;
    }

    public static NewJob of(String functionBlockId, JobType type) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("functionBlockId", Objects.requireNonNull(functionBlockId, "functionBlockId"));
        json.put("type", Objects.requireNonNull(type, "type").name());
        return new NewJob(json);
    }

    /**
     * A job for the newest registered block of this name whose version matches: a version ({@code "1.2.0"}), none
     * or {@code "*"} (any), or a range over numeric versions ({@code "1.x"}, {@code "^1.2"}, {@code "~1.2.3"},
     * {@code ">=1.2 <2"}). The server answers 422 when no registered block matches.
     */
    public static NewJob byName(String functionBlockName, String version, JobType type) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("functionBlockName", Objects.requireNonNull(functionBlockName, "functionBlockName"));
        if (version != null) {
            json.put("functionBlockVersion", version);
        }
        json.put("type", Objects.requireNonNull(type, "type").name());
        return new NewJob(json);
    }

    /** An EXECUTE job with this payload. */
    public static NewJob execute(String functionBlockId, Object payload) {
        return of(functionBlockId, JobType.EXECUTE).payload(payload);
    }

    /** The job's parameters, checked by the server against the block's params schema. */
    public NewJob payload(Object payload) {
        return with("payload", copy(payload));
    }

    /** Higher first; FIFO within a priority. Default 0. */
    public NewJob priority(int priority) {
        return with("priority", priority);
    }

    /** How often the server may run it in all (re-queues only for pure or idempotent blocks). Default 1. */
    public NewJob maxAttempts(int maxAttempts) {
        return with("maxAttempts", maxAttempts);
    }

    /** Labels a worker must have to be given the job. */
    public NewJob selector(Map<String, String> selector) {
        return with("selector", Map.copyOf(selector));
    }

    /** The engine's own reference. */
    public NewJob correlationId(String correlationId) {
        return with("correlationId", correlationId);
    }

    /** Creating the same key again answers the existing job instead of a new one. */
    public NewJob idempotencyKey(String idempotencyKey) {
        return with("idempotencyKey", idempotencyKey);
    }

    /**
     * Not claimed before this time: until then the job is PENDING and {@code scheduled}. Replaces a {@link #delay}.
     */
    public NewJob runAt(Instant runAt) {
        return with("delayMs", null).with("runAt", Objects.requireNonNull(runAt, "runAt").toString());
    }

    /** Not claimed before this long after the server's now (up to 366 days). Replaces a {@link #runAt}. */
    public NewJob delay(Duration delay) {
        return with("runAt", null).with("delayMs", RetryPolicy.millis(delay, "delay"));
    }

    /** How the server runs the job again after a reported failure; without one, the function block's, if any. */
    public NewJob retryPolicy(RetryPolicy retryPolicy) {
        return with("retryPolicy", retryPolicy == null ? null : retryPolicy.toJson());
    }

    /**
     * How long one claim of the job may run in all, however often its lease is extended; then it fails with
     * {@code EXECUTION_TIMEOUT}. Without one, the function block's, if any.
     */
    public NewJob executionTimeout(Duration timeout) {
        return with("executionTimeoutMs", timeout == null ? null : positiveMillis(timeout, "executionTimeout"));
    }

    /** The body of {@code POST /blackboard/jobs}. */
    public Map<String, Object> toJson() {
        return java.util.Collections.unmodifiableMap(json);
    }

    @Override
    public String toString() {
        return "NewJob" + Json.write(json);
    }

    private NewJob with(String name, Object value) {
        Map<String, Object> copy = new LinkedHashMap<>(json);
        if (value == null) {
            copy.remove(name);
        } else {
            copy.put(name, value);
        }
        return new NewJob(copy);
    }

    static long positiveMillis(Duration d, String what) {
        long ms = RetryPolicy.millis(d, what);
        if (ms < 1) {
            throw new IllegalArgumentException(what + " must be at least 1 ms: " + d);
        }
        return ms;
    }

    private static Object copy(Object value) {
        return value == null ? null : Json.parse(Json.write(value));
    }
}
