package io.blackboard.ojs;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;
import org.springframework.lang.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A job as the binding shows it: its row in OJS's words. The OJS state is derived, never
 * stored: SCHEDULED is {@code scheduled}, or {@code retryable} once it has run; PENDING is
 * {@code available}, POLLED {@code active}, PARKED {@code discarded} (a dead letter), PUSHED
 * {@code completed}, {@code cancelled} or {@code discarded} by its outcome. Attempts are the
 * attempts spent (claims handed back by a nack with requeue not counted, as in the retry
 * policy), from the last dead-letter retry on ({@code ojs.attempt_base}), as OJS resets them
 * there. Stored documents are read without the request parser's limits: they were checked on
 * the way in, and are stored a level deeper and longer than they came.
 */
record OjsJob(UUID id, String type, @Nullable String queue, @Nullable String ojs, @Nullable String payload,
        String status, @Nullable String outcome, @Nullable String failureReason, int priority, int attempt,
        int releases, int maxAttempts, OffsetDateTime createdAt, @Nullable OffsetDateTime runAt, @Nullable OffsetDateTime polledAt,
        @Nullable OffsetDateTime pushedAt, @Nullable String result, @Nullable String error, @Nullable String errors,
        @Nullable Long timeoutMs, @Nullable String worker) {

    /** Reads what the server stored itself: no request limits apply. */
    private static final JsonMapper STORED = JsonMapper.builder().build();

    int attemptBase() {
        return ojs == null ? 0 : STORED.readTree(ojs).path("attempt_base").asInt(0);
    }

    /** The attempts spent, as OJS counts them. */
    int spent(int base) {
        return attempt - releases - base;
    }

    String state(int base) {
        return switch (status) {
            case "SCHEDULED" -> spent(base) > 0 ? "retryable" : "scheduled";
            case "PENDING" -> "available";
            case "POLLED" -> "active";
            case "PARKED" -> "discarded";
            default -> "SUCCESS".equals(outcome) ? "completed" : "CANCELLED".equals(outcome) ? "cancelled" : "discarded";
        };
    }

    ObjectNode toJson(JsonMapper json) {
        JsonNode envelope = ojs == null ? json.createObjectNode() : STORED.readTree(ojs);
        int base = envelope.path("attempt_base").asInt(0);
        String state = state(base);
        ObjectNode job = json.createObjectNode();
        job.put("id", id.toString());
        job.put("type", type);
        if (queue != null) {
            job.put("queue", queue);
        }
        if (envelope.has("args")) {
            job.set("args", envelope.get("args"));
        } else {
            job.set("args", json.createArrayNode().add(payload == null ? json.createObjectNode() : STORED.readTree(payload)));
        }
        if (envelope.has("meta")) {
            job.set("meta", envelope.get("meta"));
        }
        job.put("priority", priority);
        job.put("state", state);
        job.put("attempt", spent(base));
        job.put("max_attempts", maxAttempts - base);
        if (timeoutMs != null) {
            job.put("timeout_ms", timeoutMs);
        }
        job.put("created_at", time(createdAt));
        job.put("enqueued_at", time(createdAt));
        if (runAt != null) {
            job.put("scheduled_at", time(runAt));
        }
        if (polledAt != null) {
            job.put("started_at", time(polledAt));
        }
        ArrayNode history = errors(json, base);
        String ended = pushedAt != null ? time(pushedAt)
                : "PARKED".equals(status) && !history.isEmpty() ? history.get(history.size() - 1).path("occurred_at").asString()
                : null;
        switch (state) {
            case "completed" -> job.put("completed_at", ended);
            case "cancelled" -> job.put("cancelled_at", ended);
            case "discarded" -> {
                job.put("completed_at", ended);
                job.put("discarded_at", ended);
            }
            default -> {
            }
        }
        if (result != null) {
            job.set("result", STORED.readTree(result));
        }
        JsonNode last = lastError(json);
        if (last != null) {
            job.set("error", last);
        }
        if (!history.isEmpty()) {
            job.set("errors", history);
        }
        Long delay = retryDelayMs(history);
        if (delay != null) {
            job.put("retry_delay_ms", delay);
        }
        if ("retryable".equals(state) && runAt != null) {
            job.put("next_attempt_at", time(runAt));
        }
        if (worker != null && ("active".equals(state) || "completed".equals(state))) {
            job.put("worker_id", worker);
        }
        if (envelope.has("options")) {
            job.set("options", envelope.get("options"));
        }
        for (Map.Entry<String, JsonNode> field : envelope.path("extra").properties()) {
            if (!job.has(field.getKey())) {
                job.set(field.getKey(), field.getValue());
            }
        }
        return job;
    }

    /** The job's error as OJS shows one: what the worker reported, or the server's reason as its code. */
    private @Nullable JsonNode lastError(JsonMapper json) {
        if (error == null) {
            return null;
        }
        JsonNode reported = STORED.readTree(error);
        if (reported.isObject()) {
            return reported;
        }
        ObjectNode shown = json.createObjectNode();
        shown.put("code", failureReason != null ? failureReason.toLowerCase(java.util.Locale.ROOT) : "server_error");
        shown.put("message", reported.isString() ? reported.asString() : reported.toString());
        return shown;
    }

    /** Each failure of the job in order: {code, message, type?, details?, attempt, occurred_at}. */
    private ArrayNode errors(JsonMapper json, int base) {
        ArrayNode shown = json.createArrayNode();
        if (errors == null) {
            return shown;
        }
        for (JsonNode entry : STORED.readTree(errors)) {
            JsonNode reported = entry.path("error");
            ObjectNode failure = json.createObjectNode();
            if (reported.isObject()) {
                failure.setAll((ObjectNode) reported.deepCopy());
            } else {
                failure.put("message", reported.isString() ? reported.asString() : reported.toString());
            }
            if (!failure.has("code")) {
                failure.put("code", "handler_error");
            }
            if (!failure.has("message")) {
                failure.put("message", "");
            }
            failure.put("attempt", entry.path("attempt").asInt() - base);
            if (entry.hasNonNull("at")) {
                failure.put("occurred_at", time(OffsetDateTime.parse(entry.get("at").asString())));
            }
            shown.add(failure);
        }
        return shown;
    }

    /** How long the job waited (or waits) after its last failure: from that failure to its run time. */
    private @Nullable Long retryDelayMs(ArrayNode history) {
        if (runAt == null || history.isEmpty() || !history.get(history.size() - 1).has("occurred_at")) {
            return null;
        }
        Instant failed = Instant.parse(history.get(history.size() - 1).get("occurred_at").asString());
        long ms = Duration.between(failed, runAt.toInstant()).toMillis();
        return ms >= 0 ? ms : null;
    }

    static String time(OffsetDateTime time) {
        return time.toInstant().toString();
    }
}
