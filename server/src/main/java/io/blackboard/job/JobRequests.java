package io.blackboard.job;

import io.blackboard.platform.errors.BadRequest;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads the body of {@code POST /blackboard/jobs}, which is one job or an array of them, and
 * answers every problem with the position and field it concerns.
 */
@Component
class JobRequests {

    static final int MAX_BATCH = 1000;

    private final JsonMapper json;
    private final Validator validator;

    JobRequests(JsonMapper json, Validator validator) {
        this.json = json;
        this.validator = validator;
    }

    List<CreateJob> read(JsonNode body) {
        if (body.isObject()) {
            return List.of(convert(body, ""));
        }
        if (!body.isArray()) {
            throw new BadRequest("The body must be a job (a JSON object) or an array of jobs");
        }
        if (body.isEmpty() || body.size() > MAX_BATCH) {
            throw new BadRequest("A batch holds 1 to " + MAX_BATCH + " jobs; this one holds " + body.size());
        }
        List<CreateJob> jobs = new ArrayList<>(body.size());
        for (int i = 0; i < body.size(); i++) {
            jobs.add(convert(body.get(i), "[" + i + "]."));
        }
        return jobs;
    }

    private CreateJob convert(JsonNode node, String where) {
        if (!node.isObject()) {
            throw new BadRequest(where.replaceFirst("\\.$", " ") + "must be a JSON object");
        }
        CreateJob job = plainly(node);
        try {
            job = job != null ? job : json.treeToValue(node, CreateJob.class);
        } catch (JacksonException e) {
            String field = e.getPath().stream()
                    .map(ref -> ref.getPropertyName() != null ? ref.getPropertyName() : "[" + ref.getIndex() + "]")
                    .collect(Collectors.joining("."));
            throw new BadRequest("Invalid value for '" + where + field + "': " + firstLine(e.getOriginalMessage()));
        }
        if (plainlyValid(job)) {
            return job;
        }
        List<String> errors = validator.validate(job).stream()
                .map((ConstraintViolation<CreateJob> v) -> where + v.getPropertyPath() + " " + v.getMessage())
                .sorted().toList();
        if (!errors.isEmpty()) {
            throw new BadRequest("Invalid job: " + String.join("; ", errors));
        }
        return job;
    }

    /**
     * The create Jackson would read from this object, read by hand when every field is plainly
     * of its type: an id in its canonical form, a type's name, an int (a long for the delay and
     * the timeout), a non-empty string, an object for the payload, an object of non-empty strings
     * for the selector. Anything else (a time, a retry policy, a null, an empty string, another
     * number, an unknown field) is null here, and Jackson reads it, or refuses it in its words. Jackson's pass from
     * the tree to the record took a sixth of the server's CPU on a 1,000-job create
     * (BENCHMARKS.md). {@code JobRequestsReadingTest} compares the two on random creates.
     */
    static @Nullable CreateJob plainly(JsonNode node) {
        PlainFields fields = new PlainFields(node);
        CreateJob job = new CreateJob(fields.read("functionBlockId", JobRequests::uuid),
                fields.read("functionBlockName", JobRequests::text),
                fields.read("functionBlockVersion", JobRequests::text), fields.read("type", JobRequests::type),
                fields.read("payload", value -> value.isObject() ? value : null),
                fields.read("priority", JobRequests::integer), fields.read("maxAttempts", JobRequests::integer),
                fields.read("selector", JobRequests::selector), fields.read("correlationId", JobRequests::text),
                fields.read("idempotencyKey", JobRequests::text), null, fields.read("delayMs", JobRequests::number),
                null, fields.read("executionTimeoutMs", JobRequests::number));
        return fields.allPlain() ? job : null;
    }

    /** The fields of one object read by hand, and whether each was plainly of its type, and none left unread. */
    private static final class PlainFields {

        private final JsonNode node;
        private int read;
        private boolean plain = true;

        PlainFields(JsonNode node) {
            this.node = node;
        }

        @Nullable
        <T> T read(String name, Function<JsonNode, T> reader) {
            JsonNode value = node.get(name);
            if (value == null) {
                return null;
            }
            read++;
            T result = reader.apply(value);
            plain &= result != null;
            return result;
        }

        boolean allPlain() {
            return plain && read == node.size();
        }
    }

    private static @Nullable Integer integer(JsonNode value) {
        return value.isInt() ? value.intValue() : null;
    }

    private static @Nullable Long number(JsonNode value) {
        return value.isInt() || value.isLong() ? value.longValue() : null;
    }

    private static @Nullable String text(JsonNode value) {
        return value.isString() && !value.stringValue().isEmpty() ? value.stringValue() : null;
    }

    private static @Nullable UUID uuid(JsonNode value) {
        String text = value.isString() ? value.stringValue() : "";
        if (text.length() != 36) {
            return null;
        }
        try {
            UUID id = UUID.fromString(text);
            return id.toString().equalsIgnoreCase(text) ? id : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static @Nullable JobType type(JsonNode value) {
        if (value.isString()) {
            for (JobType type : JobType.values()) {
                if (type.name().equals(value.stringValue())) {
                    return type;
                }
            }
        }
        return null;
    }

    private static @Nullable Map<String, String> selector(JsonNode value) {
        if (!value.isObject()) {
            return null;
        }
        Map<String, String> labels = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> label : value.properties()) {
            String text = text(label.getValue());
            if (text == null) {
                return null;
            }
            labels.put(label.getKey(), text);
        }
        return labels;
    }

    /**
     * Whether the job breaks none of {@link CreateJob}'s constraints, checked by hand: Hibernate
     * Validator's pass over its fourteen properties took a sixth of the server's CPU on a
     * 1,000-job create (BENCHMARKS.md). Only the plain case is decided here: a job with a retry
     * policy or a value out of bounds (a blank selector key: {@code String.isBlank}, as the
     * validator's {@code @NotBlank} reads it) goes to the validator, which decides it and words
     * every refusal. {@code JobRequestsTest} holds the constraints this was written against: one
     * added to or changed on {@code CreateJob} fails it until this knows of it.
     */
    static boolean plainlyValid(CreateJob job) {
        return job.type() != null && length(job.functionBlockName(), 1, 200)
                && length(job.functionBlockVersion(), 1, 100) && within(job.priority(), -1_000_000, 1_000_000)
                && within(job.maxAttempts(), 1, 100) && plainSelector(job.selector())
                && length(job.correlationId(), 0, 200) && length(job.idempotencyKey(), 1, 200)
                && within(job.delayMs(), 0, CreateJob.MAX_DELAY_MS) && job.retryPolicy() == null
                && within(job.executionTimeoutMs(), 1, CreateJob.MAX_EXECUTION_TIMEOUT_MS);
    }

    private static boolean plainSelector(@Nullable Map<String, String> selector) {
        if (selector == null) {
            return true;
        }
        if (selector.size() > 64) {
            return false;
        }
        for (Map.Entry<String, String> label : selector.entrySet()) {
            String key = label.getKey();
            if (key == null || !length(key, 1, 100) || key.isBlank()
                    || label.getValue() == null || !length(label.getValue(), 0, 500)) {
                return false;
            }
        }
        return true;
    }

    private static boolean length(@Nullable String text, int min, int max) {
        return text == null || text.length() >= min && text.length() <= max;
    }

    private static boolean within(@Nullable Number value, long min, long max) {
        return value == null || value.longValue() >= min && value.longValue() <= max;
    }

    private static String firstLine(String message) {
        int newline = message == null ? -1 : message.indexOf('\n');
        return newline < 0 ? String.valueOf(message) : message.substring(0, newline);
    }
}
