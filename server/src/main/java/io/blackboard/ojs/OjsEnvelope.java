package io.blackboard.ojs;

import io.blackboard.functionblock.RetryPolicy;
import io.blackboard.platform.sql.Ids;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.springframework.lang.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An OJS job as a producer enqueues it, checked against the envelope rules of the spec
 * (ojs-core section 5, ojs-retry) and mapped onto a native job: its type names the function
 * block, its retry policy becomes the job's native one, {@code timeout_ms} its execution
 * timeout, {@code delay_until} its run time. What Blackboard has no column for (args, meta,
 * options, unknown fields) is kept whole in the job's {@code ojs} document.
 *
 * @param ojs {@code {args, meta?, options?, extra?}}: the envelope to show again
 * @param payload what a native worker of the block is handed: the object of {@code [object]}
 *     args, else {@code {"args": [...]}}
 * @param retryPolicy the native retry policy (V8/V15: job_retries, job_backoff)
 */
record OjsEnvelope(UUID id, boolean clientId, String type, String queue, ObjectNode ojs, JsonNode payload,
        int priority, @Nullable OffsetDateTime runAt, ObjectNode retryPolicy, int maxAttempts,
        @Nullable Long timeoutMs, @Nullable String correlationId) {

    /** The spec's type pattern, with the hyphens its own conformance cases use ({@code dlq.test.list-first}). */
    static final Pattern TYPE = Pattern.compile("[a-z][a-z0-9_-]*(\\.[a-z][a-z0-9_-]*)*");
    static final Pattern QUEUE = Pattern.compile("[a-z0-9][a-z0-9.-]*");
    static final Pattern UUID_V7 = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    static final String DEFAULT_QUEUE = "default";
    /** The fields of the envelope the binding reads; any other is kept as given. */
    private static final Set<String> KNOWN = Set.of("id", "type", "args", "meta", "options", "queue", "priority",
            "specversion", "scheduled_at");
    /** Fields only the server sets (ojs-core section 5): a producer's are dropped, never shown as the server's. */
    private static final Set<String> SERVER_MANAGED = Set.of("state", "attempt", "max_attempts", "created_at",
            "enqueued_at", "started_at", "completed_at", "cancelled_at", "discarded_at", "result", "error", "errors",
            "retry_delay_ms", "next_attempt_at", "worker_id", "timeout_ms");
    private static final long MAX_TIMEOUT_MS = 31L * 24 * 3600 * 1000;
    private static final int MAX_ATTEMPTS = 1_000;

    static OjsEnvelope parse(JsonNode body, String where, JsonMapper json) {
        if (body == null || !body.isObject()) {
            throw OjsException.invalid(where + "a job must be a JSON object");
        }
        JsonNode type = body.get("type");
        if (type == null || type.isNull()) {
            throw OjsException.invalid(where + "type is required");
        }
        if (!type.isString() || type.asString().length() > 200 || !TYPE.matcher(type.asString()).matches()) {
            throw OjsException.invalid(where + "type must match " + TYPE.pattern() + " (dot-separated lowercase names)");
        }
        JsonNode args = body.get("args");
        if (args == null || !args.isArray()) {
            throw OjsException.invalid(where + "args is required and must be a JSON array");
        }
        JsonNode meta = body.get("meta");
        if (meta != null && !meta.isNull() && !meta.isObject()) {
            throw OjsException.invalid(where + "meta must be a JSON object");
        }
        JsonNode options = body.get("options");
        if (options != null && !options.isNull() && !options.isObject()) {
            throw OjsException.invalid(where + "options must be a JSON object");
        }
        ObjectNode opts = options != null && options.isObject() ? (ObjectNode) options : json.createObjectNode();

        boolean clientId = body.hasNonNull("id");
        UUID id = clientId ? clientId(body.get("id"), where) : Ids.newId();
        String queue = text(opts.has("queue") ? opts.get("queue") : body.get("queue"), where + "options.queue");
        queue = queue == null ? DEFAULT_QUEUE : queue;
        if (queue.length() > 200 || !QUEUE.matcher(queue).matches()) {
            throw OjsException.invalid(where + "options.queue must match " + QUEUE.pattern()
                    + " (lowercase letters, digits, dots and hyphens)");
        }
        JsonNode priorityNode = opts.has("priority") ? opts.get("priority") : body.get("priority");
        int priority = 0;
        if (priorityNode != null && !priorityNode.isNull()) {
            if (!whole(priorityNode) || priorityNode.asLong() < -100 || priorityNode.asLong() > 100) {
                throw OjsException.invalid(where + "options.priority must be an integer from -100 to 100");
            }
            priority = priorityNode.asInt();
        }
        Long timeoutMs = positive(opts.get("timeout_ms"), where + "options.timeout_ms", MAX_TIMEOUT_MS);
        positive(opts.get("visibility_timeout_ms"), where + "options.visibility_timeout_ms", MAX_TIMEOUT_MS);
        String delayUntil = text(opts.has("delay_until") ? opts.get("delay_until") : body.get("scheduled_at"),
                where + "options.delay_until");
        OffsetDateTime runAt = null;
        if (delayUntil != null) {
            try {
                runAt = OffsetDateTime.parse(delayUntil);
            } catch (DateTimeParseException e) {
                throw OjsException.invalid(where + "options.delay_until must be an RFC 3339 time, such as "
                        + "2026-01-31T12:00:00Z");
            }
            if (runAt.getYear() < 1 || runAt.getYear() > 9999) {
                throw OjsException.invalid(where + "options.delay_until must be between the years 1 and 9999");
            }
        }
        JsonNode retry = opts.get("retry");
        if (retry != null && !retry.isNull() && !retry.isObject()) {
            throw OjsException.invalid(where + "options.retry must be a JSON object");
        }
        ObjectNode policy = retryPolicy(retry != null && retry.isObject() ? retry : json.createObjectNode(),
                where + "options.retry.", json);

        ObjectNode ojs = json.createObjectNode();
        ojs.set("args", args);
        if (meta != null && meta.isObject()) {
            ojs.set("meta", meta);
        }
        if (options != null && options.isObject()) {
            ojs.set("options", options);
        }
        ObjectNode extra = json.createObjectNode();
        for (Map.Entry<String, JsonNode> field : body.properties()) {
            if (!KNOWN.contains(field.getKey()) && !SERVER_MANAGED.contains(field.getKey())) {
                extra.set(field.getKey(), field.getValue());
            }
        }
        if (!extra.isEmpty()) {
            ojs.set("extra", extra);
        }
        String correlationId = meta != null && meta.path("correlation_id").isString()
                && meta.get("correlation_id").asString().length() <= 200 ? meta.get("correlation_id").asString() : null;
        return new OjsEnvelope(id, clientId, type.asString(), queue, ojs, payload((ArrayNode) args, json), priority,
                runAt, policy, policy.get("maxAttempts").asInt(), timeoutMs, correlationId);
    }

    /** What a native worker gets: the single object of {@code [object]}, else the args under "args". */
    static JsonNode payload(ArrayNode args, JsonMapper json) {
        if (args.size() == 1 && args.get(0).isObject()) {
            return args.get(0);
        }
        ObjectNode wrapped = json.createObjectNode();
        wrapped.set("args", args);
        return wrapped;
    }

    private static UUID clientId(JsonNode id, String where) {
        if (!id.isString() || !UUID_V7.matcher(id.asString()).matches()) {
            throw OjsException.invalid(where + "id must be a lowercase UUIDv7, such as 019461a8-1a2b-7c3d-8e4f-5a6b7c8d9e0f");
        }
        return UUID.fromString(id.asString());
    }

    /**
     * The OJS retry policy as a native one. OJS's default (3 attempts, 1 s, doubling, at most
     * 5 min, jitter) for what is absent. OJS jitter (a factor in [0.5, 1.5)) becomes the native
     * jitter 0.5 (a factor in [0.5, 1]): a retry never comes later than its backoff says.
     */
    static ObjectNode retryPolicy(JsonNode retry, String where, JsonMapper json) {
        JsonNode attempts = retry.get("max_attempts");
        int maxAttempts = RetryPolicy.DEFAULT_MAX_ATTEMPTS;
        if (attempts != null && !attempts.isNull()) {
            if (!whole(attempts) || attempts.asLong() < 1 || attempts.asLong() > MAX_ATTEMPTS) {
                throw OjsException.unprocessable(where + "max_attempts must be an integer from 1 to " + MAX_ATTEMPTS);
            }
            maxAttempts = attempts.asInt();
        }
        long initial = interval(retry, "initial_interval", where, RetryPolicy.DEFAULT_INITIAL_INTERVAL_MS);
        long max = interval(retry, "max_interval", where, Math.max(RetryPolicy.DEFAULT_MAX_INTERVAL_MS, initial));
        if (max < initial) {
            throw OjsException.unprocessable(where + "max_interval must not be less than initial_interval");
        }
        JsonNode coefficient = retry.get("backoff_coefficient");
        double multiplier = RetryPolicy.DEFAULT_MULTIPLIER;
        if (coefficient != null && !coefficient.isNull()) {
            if (!coefficient.isNumber() || coefficient.asDouble() < 1 || coefficient.asDouble() > 100) {
                throw OjsException.unprocessable(where + "backoff_coefficient must be a number from 1 to 100");
            }
            multiplier = coefficient.asDouble();
        }
        String strategy = text(retry.has("backoff_strategy") ? retry.get("backoff_strategy") : retry.get("backoff_type"),
                where + "backoff_strategy");
        if (strategy != null && !Set.of("exponential", "linear", "constant").contains(strategy)) {
            throw OjsException.unprocessable(where + "backoff_strategy must be exponential, linear or constant");
        }
        JsonNode jitter = retry.get("jitter");
        if (jitter != null && !jitter.isNull() && !jitter.isBoolean()) {
            throw OjsException.unprocessable(where + "jitter must be true or false");
        }
        ArrayNode nonRetryable = json.createArrayNode();
        JsonNode listed = retry.get("non_retryable_errors");
        if (listed != null && !listed.isNull()) {
            if (!listed.isArray() || listed.size() > 100) {
                throw OjsException.unprocessable(where + "non_retryable_errors must be an array of at most 100 names");
            }
            for (JsonNode name : listed) {
                if (!name.isString() || name.asString().isBlank() || name.asString().length() > 200) {
                    throw OjsException.unprocessable(where + "non_retryable_errors must hold error names");
                }
                // OJS's prefix pattern "Auth.*" is Blackboard's too: a trailing * matches any rest
                nonRetryable.add(name.asString());
            }
        }
        String exhaustion = text(retry.get("on_exhaustion"), where + "on_exhaustion");
        if (exhaustion != null && !exhaustion.equals("discard") && !exhaustion.equals("dead_letter")) {
            throw OjsException.unprocessable(where + "on_exhaustion must be discard or dead_letter");
        }
        ObjectNode policy = json.createObjectNode();
        policy.put("maxAttempts", maxAttempts);
        policy.put("initialIntervalMs", initial);
        policy.put("multiplier", multiplier);
        policy.put("maxIntervalMs", max);
        policy.put("jitter", jitter == null || jitter.isNull() || jitter.asBoolean() ? 0.5 : 0.0);
        policy.set("nonRetryableErrors", nonRetryable);
        policy.set("nonRetryableTypes", nonRetryable.deepCopy());
        policy.put("onExhausted", RetryPolicy.Exhausted.valueOf("dead_letter".equals(exhaustion) ? "PARK" : "FAIL")
                .name());
        if ("linear".equals(strategy) || "constant".equals(strategy)) {
            policy.put("backoff", strategy);
        }
        return policy;
    }

    /** An interval as an ISO 8601 duration ({@code PT1S}) or, under {@code name_ms}, milliseconds. */
    private static long interval(JsonNode retry, String name, String where, long otherwise) {
        JsonNode ms = retry.get(name + "_ms");
        if (ms != null && !ms.isNull()) {
            Long value = positive(ms, where + name + "_ms", RetryPolicy.MAX_INTERVAL_MS);
            return value;
        }
        String iso = text(retry.get(name), where + name);
        if (iso == null) {
            return otherwise;
        }
        try {
            Duration duration = Duration.parse(iso);
            if (duration.isNegative() || duration.toMillis() > RetryPolicy.MAX_INTERVAL_MS) {
                throw OjsException.unprocessable(where + name + " must be from PT0S to P7D");
            }
            return duration.toMillis();
        } catch (DateTimeParseException | ArithmeticException e) {
            throw OjsException.unprocessable(where + name + " must be an ISO 8601 duration, such as PT1S");
        }
    }

    private static @Nullable Long positive(@Nullable JsonNode value, String name, long most) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (!whole(value) || value.asLong() < 1 || value.asLong() > most) {
            throw OjsException.invalid(name + " must be a whole number of milliseconds from 1 to " + most);
        }
        return value.asLong();
    }

    /** A whole number that fits a long: a bigger one is as out of range as any other. */
    static boolean whole(JsonNode value) {
        return value.isIntegralNumber() && value.canConvertToLong();
    }

    private static @Nullable String text(@Nullable JsonNode value, String name) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isString()) {
            throw OjsException.invalid(name + " must be a string");
        }
        return value.asString();
    }
}
