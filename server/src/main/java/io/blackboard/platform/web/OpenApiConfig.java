package io.blackboard.platform.web;

import com.fasterxml.jackson.annotation.JsonRawValue;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import java.lang.annotation.Annotation;
import java.util.Arrays;
import java.util.Map;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springdoc.core.customizers.PropertyCustomizer;
import org.springdoc.core.utils.SpringDocUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;

/**
 * The OpenAPI document at {@code /v3/api-docs} (browsable at {@code /swagger-ui.html}). Every
 * operation answers errors as RFC 9457 problems, so they are documented once here: any error
 * response an endpoint declares, plus 400 and 500 everywhere and 404 where a path names an id,
 * carries the {@code ProblemDetail} schema as {@code application/problem+json}.
 */
@Configuration(proxyBeanMethods = false)
class OpenApiConfig {

    static final String PROBLEM = "ProblemDetail";
    static final String PROBLEM_JSON = "application/problem+json";

    static {
        // JSON documents (payloads, results, schemas) are any JSON, not a JsonNode bean
        SpringDocUtils.getConfig().replaceWithSchema(JsonNode.class, anyJson());
    }

    private static Schema<Object> anyJson() {
        return new Schema<>().description("Any JSON value");
    }

    @Bean
    OpenAPI blackboardOpenApi(ServerVersion server) {
        return new OpenAPI()
                .info(new Info().title("Blackboard").version(server.version())
                        .description("""
                        Job coordination between a workflow engine and its workers. The engine writes jobs \
                        onto the blackboard; workers register, heartbeat, claim the jobs of the function \
                        blocks they serve and push results; the engine reads the result feed. Every error \
                        is an RFC 9457 problem (application/problem+json).

                        The operator's [dashboard](/) shows workers, function blocks and jobs; \
                        [/actuator/prometheus](/actuator/prometheus) serves the metrics (operator token)."""));
    }

    private static Schema<?> problemSchema() {
        return new ObjectSchema()
                .description("RFC 9457 problem; conflicts add the job's state (jobStatus, attempt, outcome, ...)")
                .addProperty("type", new StringSchema().format("uri-reference").example("/problems/job-not-held"))
                .addProperty("title", new StringSchema().example("Conflict"))
                .addProperty("status", new IntegerSchema().example(409))
                .addProperty("detail", new StringSchema()
                        .example("Job 01a2... is not held by worker 01a2... at attempt 1: it is PUSHED/FAILURE"))
                .addProperty("instance", new StringSchema().format("uri-reference").example("/blackboard/job/result"))
                .additionalProperties(true);
    }

    /** Fields serialized with {@code @JsonRawValue} hold JSON as stored: document them as JSON. */
    @Bean
    PropertyCustomizer rawJsonProperties() {
        return (schema, type) -> {
            Annotation[] annotations = type.getCtxAnnotations();
            boolean raw = annotations != null && Arrays.stream(annotations).anyMatch(JsonRawValue.class::isInstance);
            return raw ? anyJson().description("JSON, passed through as stored") : schema;
        };
    }

    @Bean
    OpenApiCustomizer problemResponses() {
        return openApi -> {
            if (openApi.getComponents() == null) {
                openApi.setComponents(new Components());
            }
            openApi.getComponents().addSchemas(PROBLEM, problemSchema());
            openApi.getPaths().forEach((path, item) -> item.readOperationsMap().forEach(
                    (method, operation) -> addProblems(path, operation)));
        };
    }

    private static void addProblems(String path, Operation operation) {
        ApiResponses responses = operation.getResponses() == null ? new ApiResponses() : operation.getResponses();
        Map<String, String> common = Map.of(
                "400", "Malformed JSON, a wrong type or an invalid value (the detail names the field)",
                "500", "The server failed; the failure is logged");
        common.forEach((code, description) -> responses.putIfAbsent(code, new ApiResponse().description(description)));
        if (path.contains("{id}")) {
            responses.putIfAbsent("404", new ApiResponse().description("No such " + (path.startsWith("/workers")
                    ? "worker" : path.startsWith("/function-blocks") ? "function block" : "job")));
        }
        ApiResponses sorted = new ApiResponses();
        responses.keySet().stream().sorted().forEach(code -> {
            ApiResponse response = responses.get(code);
            if (code.startsWith("4") || code.startsWith("5")) {
                response.setContent(new Content().addMediaType(PROBLEM_JSON,
                        new MediaType().schema(new Schema<>().$ref("#/components/schemas/" + PROBLEM))));
            }
            sorted.addApiResponse(code, response);
        });
        operation.setResponses(sorted);
    }
}
