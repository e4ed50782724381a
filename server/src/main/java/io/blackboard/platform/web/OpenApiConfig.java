package io.blackboard.platform.web;

import io.blackboard.platform.security.AccessRules;
import io.blackboard.platform.security.SecurityProperties;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.HeaderParameter;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springdoc.core.customizers.PropertyCustomizer;
import org.springdoc.core.utils.SpringDocUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import tools.jackson.databind.JsonNode;

/**
 * The OpenAPI document at {@code /v3/api-docs} (browsable at {@code /swagger-ui.html}), made to
 * say what the server does: each operation's callers, asked of the security filter chain
 * ({@link AccessRules}); every status it can answer, the filters' (401, 403, 413, 503) and the
 * framework's (400, 406, 415) included, as RFC 9457 problems ({@link ApiErrors}); and an example
 * of each body ({@link ApiExamples}). The OJS binding documents its own envelope first (its
 * {@code OjsApiDocs}); this adds what answers before the binding runs.
 */
@Configuration(proxyBeanMethods = false)
class OpenApiConfig {

    static final String PROBLEM = "ProblemDetail";
    static final String PROBLEM_JSON = "application/problem+json";

    /** One bearer scheme per kind of token, so that a client or Swagger UI knows which to send. */
    private static final Map<AccessRules.Caller, String> SCHEMES = new EnumMap<>(Map.of(
            AccessRules.Caller.WORKER, "worker",
            AccessRules.Caller.WORKER_TOKEN, "workerToken",
            AccessRules.Caller.ENGINE, "engine",
            AccessRules.Caller.OPERATOR, "operator",
            AccessRules.Caller.OJS_WORKER, "ojsWorker"));

    private static final Map<String, String> SCHEME_DESCRIPTIONS = Map.of(
            "worker", "A worker role token (BLACKBOARD_WORKER_TOKENS): registers workers",
            "workerToken", "The token POST /workers/register answers: acts for that worker only, "
                    + "in the path and in the body (403 for another worker)",
            "engine", "An engine token (BLACKBOARD_ENGINE_TOKENS): writes, reads and cancels jobs",
            "operator", "An operator token (BLACKBOARD_OPERATOR_TOKENS): reads everything, acts for any worker",
            "ojsWorker", "An OJS worker token (BLACKBOARD_OJS_WORKER_TOKENS): the OJS binding's worker calls");

    static {
        // JSON documents (payloads, results, schemas) are any JSON, not a JsonNode bean
        SpringDocUtils.getConfig().replaceWithSchema(JsonNode.class, anyJson());
    }

    static Schema<Object> anyJson() {
        return new Schema<>().description("Any JSON value");
    }

    @Bean
    OpenAPI blackboardOpenApi(ServerVersion server, SecurityProperties limits) {
        Components components = new Components();
        SCHEME_DESCRIPTIONS.forEach((name, description) -> components.addSecuritySchemes(name,
                new SecurityScheme().type(SecurityScheme.Type.HTTP).scheme("bearer").description(description)));
        return new OpenAPI()
                .components(components)
                .info(new Info().title("Blackboard").version(server.version())
                        .description("""
                        Job coordination between a workflow engine and its workers. The engine writes jobs \
                        onto the blackboard; workers register, heartbeat, claim the jobs of the function \
                        blocks they serve and push results; the engine reads the result feed. Every error \
                        is an RFC 9457 problem (application/problem+json), but the OJS binding's own, which \
                        are OJS's envelope (docs/ojs.md).

                        Every call but the public ones (the OJS manifest and health, this document, \
                        /actuator/health) needs `Authorization: Bearer <token>`; each operation names the \
                        kinds of token it takes (its security). An unknown token is 401 on every path, the \
                        public ones included. Any request may be answered 503 with Retry-After when the \
                        replica sheds load or the database is unavailable: nothing was done, send it again.

                        A body is at most %d bytes (BLACKBOARD_MAX_BODY_SIZE; larger: 413), its JSON nested \
                        at most %d deep and its strings at most %d characters long (else 400). \
                        A property that is not required may be null.

                        The operator's [dashboard](/) shows workers, function blocks and jobs; \
                        [/actuator/prometheus](/actuator/prometheus) serves the metrics (operator token)."""
                                .formatted(limits.maxBodySize().toBytes(), limits.maxJsonDepth(),
                                        limits.maxJsonStringLength())));
    }

    static Schema<?> problemSchema() {
        return new ObjectSchema()
                .description("RFC 9457 problem; conflicts add the job's state (jobStatus, attempt, outcome, ...), "
                        + "invalid requests the list of errors")
                .addProperty("type", new StringSchema().format("uri-reference").example("/problems/job-not-held"))
                .addProperty("title", new StringSchema().example("Conflict"))
                .addProperty("status", new IntegerSchema().example(409))
                .addProperty("detail", new StringSchema()
                        .example("Job 01a2... is not held by worker 01a2... at attempt 1: it is PUSHED/FAILURE"))
                .addProperty("instance", new StringSchema().format("uri-reference").example("/blackboard/job/result"))
                .addRequiredItem("title").addRequiredItem("status")
                .additionalProperties(true);
    }

    /** Raw JSON fields as any JSON; what may be null says so ({@link NullableProperties}). */
    @Bean
    PropertyCustomizer jsonProperties() {
        return new NullableProperties();
    }

    /** Last, after the features' own customizers (the OJS binding's envelope). */
    @Bean
    @Order(Ordered.LOWEST_PRECEDENCE)
    OpenApiCustomizer truthfulDocument(AccessRules access) {
        return openApi -> {
            openApi.getComponents().addSchemas(PROBLEM, problemSchema());
            openApi.getPaths().forEach((path, item) -> item.readOperationsMap().forEach((method, operation) -> {
                secure(access, method.name(), path, operation);
                if (operation.getParameters() == null || operation.getParameters().stream()
                        .noneMatch(parameter -> Caller.TIMEOUT_HEADER.equals(parameter.getName()))) {
                    operation.addParametersItem(deadline());
                }
                ApiErrors.document(path, operation);
                optionalBodyMayBeNull(operation);
            }));
            ApiExamples.fill(openApi);
        };
    }

    /** A body that is optional may be sent as JSON null too: the same as none. */
    private static void optionalBodyMayBeNull(Operation operation) {
        if (operation.getRequestBody() == null || Boolean.TRUE.equals(operation.getRequestBody().getRequired())) {
            return;
        }
        operation.getRequestBody().getContent().values().forEach(media -> media.setSchema(new Schema<>()
                .anyOf(List.of(media.getSchema(), new Schema<>().types(Set.of("null"))))));
    }

    /** Every request may say how long its client waits (CallerFilter); docs/api.md, "Request deadlines". */
    private static Parameter deadline() {
        return new HeaderParameter().name(Caller.TIMEOUT_HEADER).required(false)
                .description("How long the client waits for the answer, from sending the request: no work is "
                        + "done for an answer nobody reads (a poll, push or create past it is 503 deadline-passed)")
                .schema(new IntegerSchema().format("int64").minimum(BigDecimal.ZERO)
                        .maximum(BigDecimal.valueOf(CallerFilter.MAX_TIMEOUT_MS)));
    }

    /** The callers the filter chain lets through, as security requirements; none for a public one. */
    private static void secure(AccessRules access, String method, String path, Operation operation) {
        if (access.isPublic(method, path)) {
            operation.setSecurity(new ArrayList<>());
            return;
        }
        List<String> schemes = access.allowed(method, path).stream().map(SCHEMES::get).toList();
        operation.setSecurity(schemes.stream().map(scheme -> new SecurityRequirement().addList(scheme)).toList());
        String callers = "Callers: " + String.join(", ", schemes) + ".";
        if (operation.getDescription() == null) {
            operation.setDescription(callers);
        } else if (!operation.getDescription().contains(callers)) {
            operation.setDescription(operation.getDescription() + "\n\n" + callers);
        }
    }
}
