package io.blackboard.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import io.blackboard.functionblock.Schemas;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
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
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

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
    Schemas schemas;

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
            assertThat(op.operation().path("parameters").valueStream()
                    .anyMatch(parameter -> parameter.path("name").asString().equals(Caller.TIMEOUT_HEADER)))
                    .as(name + " takes " + Caller.TIMEOUT_HEADER).isTrue();
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
                        } else if (Set.of("400", "413", "503").contains(code)
                                || code.equals("404") && op.path().contains("{id}")) { // an empty id: no path
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
    void everyExampleConformsToItsSchema() {
        for (Op op : operations()) {
            List<JsonNode> contents = new ArrayList<>();
            contents.add(op.operation().at("/requestBody/content"));
            op.operation().path("responses").forEach(response -> contents.add(response.path("content")));
            for (JsonNode content : contents) {
                content.properties().forEach(media -> {
                    List<JsonNode> examples = new ArrayList<>();
                    if (media.getValue().has("example")) {
                        examples.add(media.getValue().get("example"));
                    }
                    media.getValue().path("examples").forEach(example -> examples.add(example.path("value")));
                    examples.forEach(example -> assertThat(violations(media.getValue().get("schema"), example))
                            .as(op.name() + " " + media.getKey() + " example " + example).isEmpty());
                });
            }
        }
    }

    /** Where {@code value} breaks {@code schema}, a schema of the document (its references resolved there). */
    private List<String> violations(JsonNode schema, JsonNode value) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.set("components", docs.path("components"));
        root.setAll((ObjectNode) schema);
        return schemas.violations(Optional.of(root.toString()), value);
    }

    /**
     * What the server answers in a day's work, successes and refusals, the OJS binding's too, is
     * listed for its operation, with its content type, and conforms to the documented schema.
     */
    @Test
    void answersConformToTheirDocumentedSchemas() {
        UUID worker = UUID.fromString(check("POST", "/workers/register", "/workers/register",
                Map.of("name", "docs-worker", "labels", Map.of("site", "a"))).at("/id").asString());
        UUID block = UUID.fromString(check("POST", "/function-blocks/register", "/function-blocks/register",
                Map.of("workerId", worker, "functionBlocks", List.of(block("docs.block", "1.0.0")))).at("/0/id")
                .asString());
        UUID job = UUID.fromString(check("POST", "/blackboard/jobs", "/blackboard/jobs",
                Map.of("functionBlockId", block, "type", "EXECUTE", "payload", Map.of("host", "r1"))).at("/id")
                .asString());
        check("GET", "/blackboard/jobs/{id}", "/blackboard/jobs/" + job, null);
        check("POST", "/workers/{id}/ping", "/workers/" + worker + "/ping", Map.of());
        check("POST", "/blackboard/job", "/blackboard/job", Map.of("workerId", worker, "limit", 1));
        check("POST", "/blackboard/job/progress", "/blackboard/job/progress",
                Map.of("jobId", job, "workerId", worker, "attempt", 1, "percent", 50));
        Map<String, Object> push = Map.of("jobId", job, "workerId", worker, "attempt", 1, "status", "SUCCESS",
                "result", Map.of("lines", 3));
        check("POST", "/blackboard/job/result", "/blackboard/job/result", push);
        check("POST", "/blackboard/job/results", "/blackboard/job/results", List.of(push));
        check("POST", "/blackboard/job/next", "/blackboard/job/next", Map.of("workerId", worker, "limit", 0));
        check("POST", "/blackboard/jobs/{id}/cancel", "/blackboard/jobs/" + job + "/cancel", null); // 409
        check("POST", "/blackboard/jobs/cancel", "/blackboard/jobs/cancel", Map.of("correlationId", "none"));
        check("GET", "/blackboard/jobs/{id}", "/blackboard/jobs/" + UUID.randomUUID(), null); // 404
        check("POST", "/blackboard/job", "/blackboard/job", Map.of("workerId", worker, "limit", 1000)); // 400
        for (String path : List.of("/blackboard/jobs", "/blackboard/results", "/blackboard/dead-letters",
                "/function-blocks", "/workers", "/workers/online", "/operator/workers", "/operator/running",
                "/operator/failures", "/operator/history")) {
            check("GET", path, path, null);
        }
        check("GET", "/operator/search", "/operator/search?q=docs", null);
        check("GET", "/blackboard/jobs/{id}/events", "/blackboard/jobs/" + job + "/events", null);
        for (String path : List.of("/workers/{id}", "/workers/{id}/events", "/workers/{id}/jobs",
                "/workers/{id}/function-blocks")) {
            check("GET", path, path.replace("{id}", worker.toString()), null);
        }
        check("PUT", "/workers/{id}/directive", "/workers/" + worker + "/directive", Map.of("directive", "QUIET"));
        check("POST", "/workers/{id}/unregister", "/workers/" + worker + "/unregister", null);

        String ojsJob = check("POST", "/ojs/v1/jobs", "/ojs/v1/jobs",
                Map.of("type", "docs.mail", "args", List.of(Map.of("to", "ops")))).at("/job/id").asString();
        check("POST", "/ojs/v1/jobs/batch", "/ojs/v1/jobs/batch",
                Map.of("jobs", List.of(Map.of("type", "docs.mail", "args", List.of()))));
        check("POST", "/ojs/v1/workers/fetch", "/ojs/v1/workers/fetch", Map.of("queues", List.of("default"),
                "worker_id", "docs-1"));
        check("POST", "/ojs/v1/workers/heartbeat", "/ojs/v1/workers/heartbeat",
                Map.of("worker_id", "docs-1", "active_jobs", List.of(ojsJob)));
        check("POST", "/ojs/v1/workers/ack", "/ojs/v1/workers/ack", Map.of("job_id", ojsJob, "worker_id", "docs-1"));
        check("POST", "/ojs/v1/workers/nack", "/ojs/v1/workers/nack", Map.of("job_id", ojsJob,
                "error", Map.of("message", "late"))); // 409
        check("GET", "/ojs/v1/jobs/{id}", "/ojs/v1/jobs/" + ojsJob, null);
        check("GET", "/ojs/v1/jobs/{id}", "/ojs/v1/jobs/" + UUID.randomUUID(), null); // 404
        check("DELETE", "/ojs/v1/jobs/{id}", "/ojs/v1/jobs/" + ojsJob, null); // 409
        for (String path : List.of("/ojs/manifest", "/ojs/v1/health", "/ojs/v1/queues", "/ojs/v1/events",
                "/ojs/v1/dead-letter")) {
            check("GET", path, path, null);
        }
        check("POST", "/ojs/v1/workers/fetch", "/ojs/v1/workers/fetch", Map.of("queues", List.of())); // 400
        check("GET", "/workers", "/workers", null, api.as(null)); // 401
        check("GET", "/ojs/v1/queues", "/ojs/v1/queues", null, api.as("test-ojs-worker")); // 403
    }

    /** The framework's and the filters' refusals are documented as they come, too. */
    @Test
    void refusalsBeforeTheControllersConformToo() throws Exception {
        String large = "[" + "1,".repeat(600_000) + "1]";
        refused(415, "POST", "/workers/register", send("POST", "/workers/register", "text/plain", null, "hi"));
        refused(406, "GET", "/workers", send("GET", "/workers", null, "text/plain", null));
        refused(413, "POST", "/blackboard/jobs", send("POST", "/blackboard/jobs", "application/json", null, large));
        refused(413, "POST", "/ojs/v1/jobs", send("POST", "/ojs/v1/jobs", "application/json", null, large));
        refused(400, "POST", "/ojs/v1/jobs", send("POST", "/ojs/v1/jobs", "text/plain", null, "{}"));
        HttpRequest malformed = HttpRequest.newBuilder(URI.create(api.baseUrl() + "/ojs/v1/queues"))
                .header(Caller.TIMEOUT_HEADER, "soon").header("Authorization", "Bearer " + Api.ALL_ROLES).build();
        refused(400, "GET", "/ojs/v1/queues", response(HttpClient.newHttpClient().send(malformed,
                HttpResponse.BodyHandlers.ofString())));
        HttpRequest unsupported = HttpRequest.newBuilder(URI.create(api.baseUrl() + "/ojs/manifest"))
                .header("OJS-Version", "2.0").build();
        refused(422, "GET", "/ojs/manifest", response(HttpClient.newHttpClient().send(unsupported,
                HttpResponse.BodyHandlers.ofString())));
    }

    private Api.Response send(String method, String path, String contentType, String accept, String body)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(api.baseUrl() + path))
                .header("Authorization", "Bearer " + Api.ALL_ROLES)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        if (accept != null) {
            request.header("Accept", accept);
        }
        return response(HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString()));
    }

    private static Api.Response response(HttpResponse<String> response) {
        return new Api.Response(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                response.body(), JsonMapper.builder().build().readTree(response.body()), response.headers());
    }

    private void refused(int status, String method, String template, Api.Response response) {
        assertThat(response.status()).as(method + " " + template + ": " + response).isEqualTo(status);
        conforms(method, template, response);
    }

    private JsonNode check(String method, String template, String path, Object body) {
        return check(method, template, path, body, api);
    }

    private JsonNode check(String method, String template, String path, Object body, Api caller) {
        return conforms(method, template, caller.send(method, path, body == null ? null : Api.json(body)));
    }

    /** Asserts that an answer is documented for its operation as it came, and conforms to the schema. */
    private JsonNode conforms(String method, String template, Api.Response response) {
        String name = method + " " + template + " " + response.status();
        JsonNode documented = docs.path("paths").path(template).path(method.toLowerCase(Locale.ROOT))
                .path("responses").path(String.valueOf(response.status()));
        assertThat(documented.isMissingNode()).as(name + " is documented: " + response).isFalse();
        if (response.raw().isEmpty()) {
            return response.body();
        }
        String type = response.contentType().split(";")[0].trim();
        JsonNode media = documented.path("content").path(type);
        assertThat(media.isMissingNode()).as(name + " documents " + type).isFalse();
        assertThat(violations(media.get("schema"), response.body()))
                .as(name + " conforms: " + response.raw().substring(0, Math.min(300, response.raw().length()))).isEmpty();
        return response.body();
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
        assertThat(docs.at("/paths/~1workers/get/responses/200/headers/Link").isMissingNode()).isFalse();
        assertThat(docs.at("/paths/~1workers~1register/post/responses/201/headers/Location").isMissingNode()).isFalse();
        assertThat(docs.at("/paths/~1ojs~1v1~1jobs/post/responses/201/headers/Location").isMissingNode()).isFalse();
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
