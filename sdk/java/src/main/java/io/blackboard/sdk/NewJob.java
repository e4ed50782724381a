package io.blackboard.sdk;

import io.blackboard.sdk.internal.Json;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A job to create with {@link BlackboardEngine#createJob}. Immutable; each method returns a copy.
 *
 * <pre>{@code
 * NewJob.of(blockId, JobType.EXECUTE).payload(Map.of("host", "r1")).idempotencyKey("wf-42/backup-r1")
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

    private static Object copy(Object value) {
        return value == null ? null : Json.parse(Json.write(value));
    }
}
