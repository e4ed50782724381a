package io.blackboard.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import tools.jackson.databind.JsonNode;

/**
 * The OpenAPI document describes every endpoint the server maps, the OJS binding's included,
 * with what each really answers: its callers, its errors, its success with a schema and examples.
 */
class ApiDocsTest extends IntegrationTest {

    private static final String PROBLEM = "#/components/schemas/ProblemDetail";
    private static final String OJS_ERROR = "#/components/schemas/OjsError";

    /** A role token of each kind the security schemes name (application.properties of the tests). */
    private static final Map<String, String> ROLE_TOKENS = Map.of("worker", "test-worker", "engine", "test-engine",
            "operator", "test-operator", "ojsWorker", "test-ojs-worker");

    @Autowired
    @Qualifier("requestMappingHandlerMapping")
    RequestMappingHandlerMapping mappings;

    JsonNode docs;

    @BeforeEach
    void readTheDocument() {
        Api.Response response = api.as(null).get("/v3/api-docs");
        assertThat(response.status()).as("the document is public").isEqualTo(200);
        docs = response.body();
    }

    /** "METHOD /path" for every endpoint of our controllers. */
    Set<String> mappedEndpoints() {
        Set<String> endpoints = new TreeSet<>();
        mappings.getHandlerMethods().forEach((info, handler) -> {
            if (handler.getBeanType().getPackageName().startsWith("io.blackboard")) {
                info.getPathPatternsCondition().getPatternValues().forEach(path -> info.getMethodsCondition()
                        .getMethods().forEach(method -> endpoints.add(method + " " + path)));
            }
        });
        return endpoints;
    }

    record Op(String method, String path, JsonNode operation) {
        String name() {
            return method.toUpperCase(Locale.ROOT) + " " + path;
        }

        boolean ojs() {
            return path.startsWith("/ojs/");
        }

        boolean isPublic() {
            return operation.path("security").isArray() && operation.path("security").isEmpty();
        }

        Set<String> schemes() {
            Set<String> schemes = new TreeSet<>();
            operation.path("security").forEach(requirement -> requirement.properties()
                    .forEach(scheme -> schemes.add(scheme.getKey())));
            return schemes;
        }

        JsonNode response(String code) {
            return operation.path("responses").path(code);
        }
    }

    List<Op> operations() {
        List<Op> operations = new ArrayList<>();
        docs.at("/paths").properties().forEach(path -> path.getValue().properties().forEach(
                operation -> operations.add(new Op(operation.getKey(), path.getKey(), operation.getValue()))));
        return operations;
    }

    @Test
    void everyEndpointIsDocumented() {
        Set<String> documented = operations().stream().map(Op::name).collect(Collectors.toCollection(TreeSet::new));

        Set<String> mapped = mappedEndpoints();
        assertThat(mapped).hasSizeGreaterThan(50).contains("POST /ojs/v1/workers/fetch", "GET /ojs/manifest");
        assertThat(documented).containsExactlyInAnyOrderElementsOf(mapped);
    }

    @Test
    void everyOperationHasItsCallersItsRefusalsAndAnExampledSuccess() {
        for (Op op : operations()) {
            String name = op.name();
            assertThat(op.operation().path("summary").asString()).as(name).isNotBlank();
            assertThat(op.operation().has("security")).as(name + " states its security").isTrue();
            assertThat(op.response("401").isMissingNode()).as(name + " 401 (an unknown token)").isFalse();
            assertThat(op.response("413").isMissingNode()).as(name + " 413").isFalse();
            assertThat(op.response("503").path("headers").has("Retry-After")).as(name + " 503 with Retry-After").isTrue();
            if (!op.isPublic()) {
                assertThat(op.schemes()).as(name + " names its callers").isNotEmpty();
                assertThat(op.response("403").isMissingNode()).as(name + " 403").isFalse();
            }
            List<String> successes = op.operation().path("responses").propertyNames().stream()
                    .filter(code -> code.startsWith("2")).toList();
            assertThat(successes).as(name + " has a success").isNotEmpty();
            for (String code : successes) {
                JsonNode content = op.response(code).path("content");
                if (code.equals("204")) {
                    assertThat(content.isMissingNode()).as(name + " 204 has no body").isTrue();
                    continue;
                }
                assertThat(content.isEmpty()).as(name + " " + code + " has a body").isFalse();
                content.properties().forEach(media -> {
                    assertThat(media.getValue().has("schema")).as(name + " " + code + " schema").isTrue();
                    assertThat(hasExample(media.getValue())).as(name + " " + code + " example").isTrue();
                });
            }
            JsonNode body = op.operation().path("requestBody").path("content");
            body.properties().forEach(media -> assertThat(hasExample(media.getValue()))
                    .as(name + " request example, " + media.getKey()).isTrue());
        }
    }

    private static boolean hasExample(JsonNode media) {
        return media.has("example") || !media.path("examples").isEmpty();
    }

    @Test
    void errorsAreProblemsButTheOjsBindingsWhichAreItsEnvelope() {
        for (Op op : operations()) {
            op.operation().path("responses").properties().stream()
                    .filter(response -> response.getKey().startsWith("4") || response.getKey().startsWith("5"))
                    .forEach(response -> {
                        String code = response.getKey();
                        String name = op.name() + " " + code;
                        JsonNode content = response.getValue().path("content");
                        Set<String> schemas = content.valueStream().map(media -> media.at("/schema/$ref").asString())
                                .collect(Collectors.toSet());
                        if (!op.ojs()) {
                            assertThat(content.propertyNames()).as(name).containsExactly("application/problem+json");
                            assertThat(schemas).as(name).containsExactly(PROBLEM);
                        } else if (Set.of("401", "403").contains(code)) {
                            assertThat(schemas).as(name + ": refused before the binding").containsExactly(PROBLEM);
                        } else if (Set.of("413", "503").contains(code)) {
                            assertThat(schemas).as(name + ": by a filter, or by the binding").contains(PROBLEM)
                                    .hasSize(2);
                        } else {
                            assertThat(schemas).as(name).containsExactly(OJS_ERROR);
                            assertThat(content.propertyNames()).as(name).containsExactly("application/openjobspec+json");
                        }
                    });
            if (!op.ojs()) {
                assertThat(op.response("406").isMissingNode()).as(op.name() + " 406").isFalse();
                assertThat(op.response("415").isMissingNode()).as(op.name() + " 415")
                        .isEqualTo(!op.operation().has("requestBody"));
            } else if (op.operation().has("requestBody")) {
                assertThat(op.operation().at("/requestBody/content").propertyNames()).as(op.name())
                        .containsExactlyInAnyOrder("application/openjobspec+json", "application/json");
            }
        }
    }

    /**
     * The callers each operation names are those the server lets through: without a token every
     * non-public operation is 401, with a token of a kind it does not name 403 (both refused before
     * anything runs); its own kinds get past security (on reads only, which change nothing).
     */
    @Test
    void theCallersTheDocumentNamesAreTheServers() {
        UUID worker = registerWorker("docs-worker");
        String workerToken = api.post("/workers/register", Map.of("name", "other")).at("/token").asString();
        Api.Response registered = api.as("test-worker").post("/workers/register", Map.of("name", "docs-own"));
        String ownToken = registered.at("/token").asString();
        UUID own = UUID.fromString(registered.at("/id").asString());
        for (Op op : operations()) {
            String method = op.method().toUpperCase(Locale.ROOT);
            String path = op.path().replace("{id}", worker.toString());
            if (!op.isPublic()) {
                assertThat(api.as(null).send(method, path, null).status()).as(op.name() + " without a token")
                        .isEqualTo(401);
            }
            assertThat(api.as("no-such-token").send(method, path, null).status()).as(op.name() + " unknown token")
                    .isEqualTo(401);
            Map<String, String> tokens = new java.util.HashMap<>(ROLE_TOKENS);
            tokens.put("workerToken", workerToken); // a worker token of another worker than the path's
            for (Map.Entry<String, String> token : tokens.entrySet()) {
                if (op.isPublic() || op.schemes().contains(token.getKey())) {
                    continue;
                }
                assertThat(api.as(token.getValue()).send(method, path, null).status())
                        .as(op.name() + " with a " + token.getKey() + " token").isEqualTo(403);
            }
            if (method.equals("GET")) {
                for (String scheme : op.schemes()) {
                    String token = scheme.equals("workerToken") ? ownToken : ROLE_TOKENS.get(scheme);
                    String ownPath = op.path().replace("{id}", (scheme.equals("workerToken") ? own : worker).toString());
                    assertThat(api.as(token).send(method, ownPath, null).status())
                            .as(op.name() + " with a " + scheme + " token").isNotIn(401, 403);
                }
            }
        }
    }

    @Test
    void limitsDefaultsAndSchemesAreStated() {
        JsonNode waitMs = parameter("/blackboard/results", "waitMs");
        assertThat(waitMs.at("/schema/maximum").asInt()).isEqualTo(ServerVersion.MAX_POLL_WAIT_MS);
        assertThat(waitMs.at("/schema/default").asInt()).isZero();
        operations().forEach(op -> op.operation().path("parameters").forEach(parameter -> {
            if (parameter.path("name").asString().equals("limit")) {
                assertThat(parameter.at("/schema/minimum").asInt()).as(op.name() + " limit").isEqualTo(1);
                assertThat(parameter.at("/schema/maximum").isMissingNode()).as(op.name() + " limit max").isFalse();
                assertThat(parameter.at("/schema/default").isMissingNode()).as(op.name() + " limit default").isFalse();
            }
        }));
        assertThat(docs.at("/components/schemas/PollRequest/properties/waitMs/maximum").asInt())
                .isEqualTo(ServerVersion.MAX_POLL_WAIT_MS);
        assertThat(docs.at("/components/schemas/PollRequest/properties/waitMs/default").asInt()).isZero();
        assertThat(docs.at("/components/schemas/RegisterWorker/properties/name/maxLength").asInt()).isEqualTo(200);
        assertThat(docs.at("/components/schemas/JobView/properties/outcome/type").toString())
                .as("a job not yet ended has outcome null").contains("null");
        assertThat(docs.at("/components/securitySchemes").propertyNames())
                .containsExactlyInAnyOrder("worker", "workerToken", "engine", "operator", "ojsWorker");
        assertThat(docs.at("/paths/~1workers~1register/post/requestBody/content/application~1json/example/name")
                .asString()).isEqualTo("cisco-worker");
        assertThat(docs.at("/paths/~1blackboard~1job~1result/post/responses/409/description").asString())
                .contains("live claim");
        assertThat(docs.at("/paths/~1blackboard~1job/post/responses/429/headers/Retry-After").isMissingNode()).isFalse();
        assertThat(docs.at("/components/schemas/JobView/properties/status/enum").size())
                .as("PENDING, POLLED, PARKED, PUSHED, or null").isEqualTo(5);
    }

    private JsonNode parameter(String path, String name) {
        for (JsonNode parameter : docs.at("/paths/" + path.replace("/", "~1") + "/get/parameters")) {
            if (parameter.path("name").asString().equals(name)) {
                return parameter;
            }
        }
        throw new AssertionError("no parameter " + name + " on " + path);
    }

    @Test
    void theBrowsableUiIsServed() {
        Api.Response ui = api.getText("/swagger-ui/index.html");

        assertThat(ui.status()).isEqualTo(200);
        assertThat(ui.raw()).contains("swagger-ui");
        assertThat(api.getText("/swagger-ui.html").status()).as("redirects to the UI").isEqualTo(302);
    }
}
