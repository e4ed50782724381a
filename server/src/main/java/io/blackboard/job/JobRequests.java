package io.blackboard.job;

import io.blackboard.platform.errors.BadRequest;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
        CreateJob job;
        try {
            job = json.treeToValue(node, CreateJob.class);
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
