package io.blackboard.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every endpoint against bad input, wrong credentials and unknown ids: each answer is a 4xx
 * RFC 9457 problem without a stack trace, and the database is exactly as before.
 */
class HostileInputTest extends IntegrationTest {

    /** One endpoint: how to call it well, and what is wrong for it. */
    record Endpoint(String method, String path, String token, String body, String wrongTypes, String wrongRole,
            String otherOwner, String unknownId) {

        boolean hasBody() {
            return body != null;
        }
    }

    UUID worker;
    String workerToken;
    UUID other;
    String otherToken;
    UUID block;
    UUID pending;
    UUID polled;

    @TestFactory
    Stream<DynamicTest> everyEndpointRejectsHostileInputAndChangesNothing() {
        fixtures();
        List<DynamicTest> tests = new ArrayList<>();
        for (Endpoint endpoint : endpoints()) {
            String name = endpoint.method() + " " + endpoint.path() + ": ";
            tests.add(test(name + "no token", endpoint, api.as(null), endpoint.path(), endpoint.body(), 401));
            tests.add(test(name + "wrong role", endpoint, api.as(endpoint.wrongRole()), endpoint.path(),
                    endpoint.body(), 403));
            if (endpoint.otherOwner() != null) {
                tests.add(test(name + "wrong owner", endpoint, api.as(otherToken), endpoint.otherOwner(),
                        endpoint.body(), 403));
            }
            if (endpoint.unknownId() != null) {
                tests.add(test(name + "unknown id", endpoint, api.as(endpoint.token()), endpoint.unknownId(),
                        endpoint.body(), 404));
            }
            if (endpoint.path().contains(worker.toString()) || endpoint.path().contains(pending.toString())
                    || endpoint.path().contains(block.toString())) {
                String bad = endpoint.path().replace(worker.toString(), "not-a-uuid")
                        .replace(pending.toString(), "not-a-uuid").replace(block.toString(), "not-a-uuid");
                tests.add(test(name + "bad uuid", endpoint, api.as(endpoint.token()), bad, endpoint.body(), 400));
            }
            if (endpoint.hasBody()) {
                Api caller = api.as(endpoint.token());
                tests.add(test(name + "malformed JSON", endpoint, caller, endpoint.path(), "{\"a\": [1, 2", 400));
                tests.add(test(name + "wrong types", endpoint, caller, endpoint.path(), endpoint.wrongTypes(), 400));
                if (!endpoint.path().endsWith("/ping")) { // a ping body has no required field
                    tests.add(test(name + "missing fields", endpoint, caller, endpoint.path(),
                            endpoint.body().startsWith("[") ? "[{}]" : "{}", 400));
                }
                tests.add(test(name + "unknown field", endpoint, caller, endpoint.path(),
                        withField(endpoint.body(), "\"status\": \"PUSHED\", \"attempt\": 9"), 400));
                tests.add(test(name + "deeply nested", endpoint, caller, endpoint.path(),
                        withField(endpoint.body(), "\"x\": " + "[".repeat(200) + "]".repeat(200)), 400));
                tests.add(test(name + "huge string", endpoint, caller, endpoint.path(),
                        withField(endpoint.body(), "\"x\": \"" + "a".repeat(300_000) + "\""), 400));
                tests.add(test(name + "over-size body", endpoint, caller, endpoint.path(),
                        withField(endpoint.body(), manySmallStrings(2_000_000)), 413));
                tests.add(DynamicTest.dynamicTest(name + "over-size chunked body", () -> unchanged(() -> {
                    HttpResponse<String> response = chunked(endpoint, 3_000_000);
                    assertThat(response.statusCode()).as(response.body()).isEqualTo(413);
                    assertThat(response.headers().firstValue("Content-Type").orElse(""))
                            .startsWith("application/problem+json");
                })));
            }
        }
        return tests.stream();
    }

    /**
     * Found by ContractTest: a NUL in a string of a JSON body reached PostgreSQL, which cannot
     * store it, and was a 500. It is a 400 problem, in a text column and in a jsonb payload, and
     * nothing is written.
     */
    @Test
    void aNulInAJsonStringIsABadRequestNotA500() throws Throwable {
        UUID echo = registerBlocks(registerWorker("w"), List.of(Map.of("name", "echo", "version", "1"))).getFirst();
        unchanged(() -> {
            assertProblem(api.as("test-worker").post("/workers/register",
                    Map.of("name", "w", "sdkVersion", "a\0b")), 400, "NUL");
            assertProblem(api.as("test-engine").post("/blackboard/jobs", Map.of("functionBlockId", echo,
                    "type", "EXECUTE", "payload", Map.of("host", "r1\0"))), 400, "NUL");
        });
    }

    /** A value of the wrong JSON type is refused, never coerced (ContractTest found these taken). */
    @Test
    void aScalarOfTheWrongTypeIsABadRequestNotCoerced() throws Throwable {
        UUID me = registerWorker("w");
        unchanged(() -> {
            assertProblem(api.post("/workers/register", Map.of("name", "x", "hostname", -1)), 400, "hostname");
            assertProblem(api.post("/workers/register", Map.of("name", true)), 400, "name");
            assertProblem(api.post("/blackboard/dead-letters/rerun", Map.of("correlationId", 1.5)), 400,
                    "correlationId");
            assertProblem(api.post("/blackboard/job", Map.of("workerId", me, "limit", "1")), 400, "limit");
            assertProblem(api.post("/workers/register", Map.of("name", "x", "concurrency", " ")), 400, "");
            assertProblem(api.post("/workers/register", Map.of("name", "x", "concurrency", "\u0000")), 400, "");
        });
    }

    private void fixtures() {
        Api registrar = api.as("test-worker");
        Api.Response me = registrar.post("/workers/register", Map.of("name", "me", "concurrency", 5));
        Api.Response them = registrar.post("/workers/register", Map.of("name", "them"));
        worker = UUID.fromString(me.at("/id").asString());
        workerToken = me.at("/token").asString();
        other = UUID.fromString(them.at("/id").asString());
        otherToken = them.at("/token").asString();
        block = registerBlocks(worker, List.of(Map.of("name", "echo", "version", "1",
                "paramsJsonSchema", Map.of("type", "object"), "resultDataJsonSchema", Map.of("type", "object"))))
                .getFirst();
        pending = createJob();
        polled = createJob();
        assertThat(api.as(workerToken).post("/blackboard/job", Map.of("workerId", worker, "limit", 1)).status())
                .isEqualTo(200);
        polled = jdbc.sql("select id from job where status = 'POLLED'").query(UUID.class).single();
        pending = jdbc.sql("select id from job where status = 'PENDING'").query(UUID.class).single();
    }

    private UUID createJob() {
        Api.Response created = api.as("test-engine").post("/blackboard/jobs",
                Map.of("functionBlockId", block, "type", "EXECUTE"));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return UUID.fromString(created.at("/id").asString());
    }

    private List<Endpoint> endpoints() {
        String w = worker.toString();
        String unknown = UUID.randomUUID().toString();
        String push = "{\"jobId\": \"%s\", \"workerId\": \"%s\", \"status\": \"SUCCESS\", \"result\": {}}";
        return List.of(
                new Endpoint("POST", "/workers/register", "test-worker", "{\"name\": \"w\"}",
                        "{\"name\": [1], \"concurrency\": \"many\"}", "test-engine", null, null),
                new Endpoint("POST", "/function-blocks/register", workerToken,
                        "{\"workerId\": \"" + w + "\", \"functionBlocks\": [{\"name\": \"b\", \"version\": \"1\"}]}",
                        "{\"workerId\": 12, \"functionBlocks\": \"all\"}", "test-engine", null, null),
                new Endpoint("POST", "/workers/" + w + "/ping", workerToken, "{\"activeJobIds\": []}",
                        "{\"activeJobIds\": 5}", "test-engine", "/workers/" + w + "/ping",
                        null),
                new Endpoint("POST", "/workers/" + w + "/unregister", workerToken, null, null, "test-engine",
                        "/workers/" + w + "/unregister", null),
                new Endpoint("GET", "/workers", "test-operator", null, null, "test-engine", null, null),
                new Endpoint("GET", "/workers/online", "test-operator", null, null, "test-engine", null, null),
                new Endpoint("GET", "/operator/history?range=24h", "test-operator", null, null, "test-engine", null,
                        null),
                new Endpoint("GET", "/workers/" + w, "test-operator", null, null, "test-engine", "/workers/" + w,
                        "/workers/" + unknown),
                new Endpoint("GET", "/workers/" + w + "/function-blocks", "test-operator", null, null, "test-engine",
                        "/workers/" + w + "/function-blocks", "/workers/" + unknown + "/function-blocks"),
                new Endpoint("GET", "/workers/" + w + "/jobs", "test-operator", null, null, "test-engine",
                        "/workers/" + w + "/jobs", "/workers/" + unknown + "/jobs"),
                new Endpoint("GET", "/workers/" + w + "/events", "test-operator", null, null, "test-engine",
                        "/workers/" + w + "/events", "/workers/" + unknown + "/events"),
                new Endpoint("DELETE", "/workers/" + w, "test-operator", null, null, "test-engine", null,
                        "/workers/" + unknown),
                new Endpoint("POST", "/workers/cleanup", "test-operator", null, null, "test-engine", null, null),
                new Endpoint("POST", "/workers/cleanup-offline", "test-operator", null, null, workerToken, null, null),
                new Endpoint("GET", "/operator/search?q=me", "test-operator", null, null, "test-engine", null, null),
                new Endpoint("PUT", "/workers/" + w + "/directive", "test-operator", "{\"directive\": \"QUIET\"}",
                        "{\"directive\": 3}", "test-engine", null, "/workers/" + unknown + "/directive"),
                new Endpoint("GET", "/function-blocks", "test-engine", null, null, "test-worker", null, null),
                new Endpoint("GET", "/function-blocks/" + block, "test-engine", null, null, "test-worker", null,
                        "/function-blocks/" + unknown),
                new Endpoint("POST", "/blackboard/jobs", "test-engine",
                        "{\"functionBlockId\": \"" + block + "\", \"type\": \"EXECUTE\"}",
                        "{\"functionBlockId\": true, \"type\": 7}", "test-operator", null, null),
                new Endpoint("GET", "/blackboard/jobs", "test-engine", null, null, workerToken, null, null),
                new Endpoint("GET", "/blackboard/jobs/" + pending, "test-engine", null, null, "test-worker", null,
                        "/blackboard/jobs/" + unknown),
                new Endpoint("POST", "/blackboard/jobs/" + pending + "/cancel", "test-engine", null, null,
                        "test-operator", null, "/blackboard/jobs/" + unknown + "/cancel"),
                new Endpoint("POST", "/blackboard/jobs/cancel", "test-engine", "{\"correlationId\": \"none\"}",
                        "{\"correlationId\": [], \"functionBlockId\": 7}", "test-operator", null, null),
                new Endpoint("GET", "/blackboard/jobs/" + pending + "/events", "test-engine", null, null,
                        workerToken, null, "/blackboard/jobs/" + unknown + "/events"),
                new Endpoint("GET", "/blackboard/results", "test-engine", null, null, workerToken, null, null),
                new Endpoint("GET", "/blackboard/dead-letters", "test-engine", null, null, workerToken, null, null),
                new Endpoint("POST", "/blackboard/dead-letters/" + pending + "/rerun", "test-operator", null, null,
                        "test-engine", null, "/blackboard/dead-letters/" + unknown + "/rerun"),
                new Endpoint("POST", "/blackboard/dead-letters/" + pending + "/discard", "test-operator", null, null,
                        "test-engine", null, "/blackboard/dead-letters/" + unknown + "/discard"),
                new Endpoint("POST", "/blackboard/dead-letters/rerun", "test-operator", "{\"correlationId\": \"none\"}",
                        "{\"jobIds\": \"all\"}", "test-engine", null, null),
                new Endpoint("POST", "/blackboard/job", workerToken, "{\"workerId\": \"" + w + "\"}",
                        "{\"workerId\": \"" + w + "\", \"limit\": \"ten\"}", "test-engine", null, null),
                new Endpoint("POST", "/blackboard/job/result", workerToken, push.formatted(polled, w),
                        "{\"jobId\": [], \"workerId\": \"" + w + "\", \"status\": \"SUCCESS\"}", "test-engine", null,
                        null),
                new Endpoint("POST", "/blackboard/job/progress", workerToken,
                        "{\"jobId\": \"" + polled + "\", \"workerId\": \"" + w + "\", \"percent\": 10}",
                        "{\"jobId\": \"" + polled + "\", \"workerId\": \"" + w + "\", \"percent\": \"half\"}",
                        "test-engine", null, null),
                new Endpoint("POST", "/blackboard/job/results", workerToken, "[" + push.formatted(polled, w) + "]",
                        "[1, 2]", "test-engine", null, null),
                new Endpoint("POST", "/blackboard/job/next", workerToken,
                        "{\"workerId\": \"" + w + "\", \"results\": [" + push.formatted(polled, w) + "]}",
                        "{\"workerId\": \"" + w + "\", \"results\": {}}", "test-engine", null, null));
    }

    private DynamicTest test(String name, Endpoint endpoint, Api caller, String path, String body, int status) {
        return DynamicTest.dynamicTest(name, () -> unchanged(() -> {
            Api.Response response = caller.send(endpoint.method(), path, body);
            assertThat(response.status()).as(name + " -> " + abbreviate(response.raw())).isEqualTo(status);
            assertThat(response.contentType()).as(name).startsWith("application/problem+json");
            assertThat(response.at("/detail").asString()).as(name).isNotBlank();
            assertThat(response.raw()).as(name).doesNotContain("\tat ").doesNotContain("Exception");
        }));
    }

    private void unchanged(ThrowingRunnable request) throws Throwable {
        String before = snapshot();
        request.run();
        assertThat(snapshot()).as("the database is unchanged").isEqualTo(before);
    }

    interface ThrowingRunnable {
        void run() throws Throwable;
    }

    private String snapshot() {
        return jdbc.sql("""
                select coalesce(string_agg(t, E'\\n' order by t), '') from (
                    select 'w' || row_to_json(x)::text t from worker x union all
                    select 'f' || row_to_json(x)::text from function_block x union all
                    select 'l' || row_to_json(x)::text from worker_function_block x union all
                    select 'j' || row_to_json(x)::text from job x union all
                    select 'e' || row_to_json(x)::text from job_event x) s
                """).query(String.class).single();
    }

    private HttpResponse<String> chunked(Endpoint endpoint, int size) throws Exception {
        byte[] body = withField(endpoint.body(), manySmallStrings(size)).getBytes();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + endpoint.path()))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + endpoint.token())
                .method(endpoint.method(), HttpRequest.BodyPublishers.ofInputStream(
                        () -> new ByteArrayInputStream(body)))
                .build();
        try (HttpClient client = HttpClient.newHttpClient()) {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        }
    }

    /** A member of about {@code bytes} bytes made of short strings: only the body cap can stop it. */
    private static String manySmallStrings(int bytes) {
        return "\"x\": [" + String.join(",", java.util.Collections.nCopies(bytes / 8, "\"abcde\"")) + "]";
    }

    /** The body with one more member (in the first object, for a batch). */
    private static String withField(String body, String member) {
        int brace = body.indexOf('{');
        return body.substring(0, brace + 1) + member + ", " + body.substring(brace + 1);
    }

    private static String abbreviate(String text) {
        return text.length() > 300 ? text.substring(0, 300) + "..." : text;
    }
}
