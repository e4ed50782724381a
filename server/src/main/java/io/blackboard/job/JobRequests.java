package io.blackboard.job;

import io.blackboard.platform.errors.BadRequest;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
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
        List<String> errors = validator.validate(job).stream()
                .map((ConstraintViolation<CreateJob> v) -> where + v.getPropertyPath() + " " + v.getMessage())
                .sorted().toList();
        if (!errors.isEmpty()) {
            throw new BadRequest("Invalid job: " + String.join("; ", errors));
        }
        return job;
    }

    private static String firstLine(String message) {
        int newline = message == null ? -1 : message.indexOf('\n');
        return newline < 0 ? String.valueOf(message) : message.substring(0, newline);
    }
}
