package io.blackboard.sdk;

import io.blackboard.sdk.internal.Json;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A job as the server shows it (to a worker when it claims it, to the engine when it reads it). JSON documents
 * ({@code payload}, {@code result}, ...) are plain Java values; times are the server's ISO-8601 text.
 * {@link #json()} is the whole answer, for members this class does not name: members and values a newer server
 * adds are kept there and never fail the parsing (statuses and reasons are text, not enums, for that reason).
 */
public final class Job {

    private final Map<String, Object> json;

    private Job(Map<String, Object> json) {
        this.json = Collections.unmodifiableMap(new LinkedHashMap<>(json));
    }

    /** Wraps a job's JSON object as the server answered it. */
    public static Job fromJson(Map<String, Object> json) {
        if (json.get("id") == null) {
            throw new IllegalArgumentException("not a job: no id");
        }
        return new Job(json);
    }

    public String id() {
        return text("id");
    }

    public String functionBlockId() {
        return text("functionBlockId");
    }

    /** The job's type; an {@code IllegalArgumentException} for one this SDK does not know. */
    public JobType type() {
        String type = text("type");
        return type == null ? JobType.EXECUTE : JobType.valueOf(type);
    }

    /** {@code PENDING}, {@code POLLED}, {@code PARKED} (a dead letter, waiting for an operator) or {@code PUSHED}. */
    public String status() {
        return text("status");
    }

    /** The job's parameters as the engine created them (any JSON value; usually an object). */
    public Object payload() {
        return json.get("payload");
    }

    /** The payload when it is an object, else an empty map. */
    public Map<String, Object> params() {
        return Collections.unmodifiableMap(Json.object(payload()));
    }

    /** The fencing token of the current claim (0 before the first). */
    public int attempt() {
        return integer("attempt");
    }

    public int maxAttempts() {
        return integer("maxAttempts");
    }

    public int priority() {
        return integer("priority");
    }

    public String workerId() {
        return text("workerId");
    }

    public Map<String, Object> selector() {
        return Json.object(json.get("selector"));
    }

    public String correlationId() {
        return text("correlationId");
    }

    public String idempotencyKey() {
        return text("idempotencyKey");
    }

    public String createdAt() {
        return text("createdAt");
    }

    public String polledAt() {
        return text("polledAt");
    }

    /** When a POLLED job is failed as stuck unless pushed or extended by the worker's pings. */
    public String deadline() {
        return text("deadline");
    }

    public String pushedAt() {
        return text("pushedAt");
    }

    /** {@code SUCCESS}, {@code FAILURE} or {@code CANCELLED} once PUSHED, else null. */
    public String outcome() {
        return text("outcome");
    }

    /** Why a FAILURE failed: {@code WORKER_REPORTED}, {@code STUCK_TIMEOUT}, {@code EXECUTION_TIMEOUT}, ... */
    public String failureReason() {
        return text("failureReason");
    }

    public Object result() {
        return json.get("result");
    }

    public Object acquires() {
        return json.get("acquires");
    }

    public Object dbUpdates() {
        return json.get("dbUpdates");
    }

    public Map<String, Object> error() {
        Object error = json.get("error");
        return error == null ? null : Json.object(error);
    }

    /** A PENDING job that no poll claims before {@link #runAt()}: scheduled, or a retry waiting out its backoff. */
    public boolean scheduled() {
        return Boolean.TRUE.equals(json.get("scheduled"));
    }

    /** When a scheduled job (or a retry) becomes claimable; null when it was never scheduled. */
    public String runAt() {
        return text("runAt");
    }

    /** The job's retry policy with the server's defaults filled in, as JSON; null when it has none. */
    public Map<String, Object> retryPolicy() {
        Object policy = json.get("retryPolicy");
        return policy == null ? null : Json.object(policy);
    }

    /** Every failure reported for the job, of every attempt, oldest first: {@code {attempt, workerId, error, at}}. */
    public List<Map<String, Object>> errors() {
        List<Map<String, Object>> errors = new ArrayList<>();
        for (Object item : Json.array(json.get("errors"))) {
            errors.add(Json.object(item));
        }
        return Collections.unmodifiableList(errors);
    }

    /** How long one claim of the job may run in all, in milliseconds; null when unbounded. */
    public Long executionTimeoutMs() {
        return Json.number(json.get("executionTimeoutMs"));
    }

    /** The percentage its worker last reported (0-100); null when none was. */
    public Integer progressPercent() {
        Long percent = Json.number(json.get("progressPercent"));
        return percent == null ? null : percent.intValue();
    }

    public String progressMessage() {
        return text("progressMessage");
    }

    public String progressAt() {
        return text("progressAt");
    }

    public Map<String, Object> json() {
        return json;
    }

    @Override
    public String toString() {
        return "Job[" + id() + " " + text("type") + " " + status() + (outcome() != null ? "/" + outcome() : "")
                + ", attempt " + attempt() + "]";
    }

    private String text(String name) {
        Object value = json.get(name);
        return value == null ? null : value.toString();
    }

    private int integer(String name) {
        Object value = json.get(name);
        return value instanceof Number n ? n.intValue() : 0;
    }
}
