package io.blackboard.ojs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The runner's plumbing against a stub HTTP server (no Blackboard): templates into paths, bodies
 * and assertions, tokens by path, raw and absent bodies, WAIT, steps sent in parallel, teardown,
 * and failure messages that name the case, the step, the assertion and the answer.
 */
class OjsRunnerTest {

    @TempDir
    Path dir;

    private HttpServer server;
    private ExecutorService threads;
    private OjsRunner runner;
    private final List<String> seen = Collections.synchronizedList(new ArrayList<>());
    private final CountDownLatch bothFetching = new CountDownLatch(2);
    private final AtomicBoolean claimed = new AtomicBoolean();

    @BeforeEach
    void startStub() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        threads = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(threads);
        server.createContext("/", this::answer);
        server.start();
        runner = new OjsRunner(new OjsRunner.Target("http://127.0.0.1:" + server.getAddress().getPort(), "producer", "worker"),
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
    }

    @AfterEach
    void stopStub() {
        server.stop(0);
        threads.close();
    }

    /** Echoes each request; a fetch waits (up to 2 s) until a second fetch is in flight, then one of them gets the job. */
    private void answer(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String path = exchange.getRequestURI().toString();
        seen.add(exchange.getRequestMethod() + " " + path);
        ObjectNode echo = JsonNodeFactory.instance.objectNode();
        echo.put("method", exchange.getRequestMethod()).put("path", path).put("raw", body)
                .put("auth", exchange.getRequestHeaders().getFirst("Authorization"))
                .put("content_type", exchange.getRequestHeaders().getFirst("Content-Type"));
        int status = 200;
        if (path.equals("/ojs/v1/jobs")) {
            status = 201;
            echo.putObject("job").put("id", "job-1").put("attempt", 0);
        } else if (path.equals("/ojs/v1/workers/fetch")) {
            bothFetching.countDown();
            boolean together = await(bothFetching);
            echo.put("together", together);
            echo.putArray("jobs");
            if (claimed.compareAndSet(false, true)) {
                echo.withArrayProperty("jobs").addObject().put("id", "job-1");
            }
        } else if (path.startsWith("/big")) {
            status = 500;
            echo.put("padding", "x".repeat(5000));
        }
        byte[] out = echo.toString().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/openjobspec+json");
        exchange.sendResponseHeaders(status, out.length);
        exchange.getResponseBody().write(out);
        exchange.close();
    }

    private static boolean await(CountDownLatch latch) {
        try {
            return latch.await(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private OjsCase write(String json) throws IOException {
        Path file = dir.resolve("operations").resolve("stub-case.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, json);
        return OjsCase.read(file);
    }

    private static String caseOf(String steps) {
        return "{\"test_id\": \"T-1\", \"level\": 0, \"category\": \"operations\", \"name\": \"stub-case\", \"steps\": "
                + steps + "}";
    }

    @Test
    void templatesTokensBodiesAndWaitsReachTheServer() throws IOException {
        OjsCase c = write(caseOf("""
                [{"id": "enqueue", "action": "POST", "path": "/ojs/v1/jobs", "headers": {"Content-Type": "application/json"},
                  "body": {"type": "t", "args": [1]},
                  "assertions": {"status": 201, "body": {"$.auth": "Bearer producer", "$.content_type": "application/json",
                    "$.raw": "{\\"type\\":\\"t\\",\\"args\\":[1]}"}}},
                 {"id": "wait", "action": "WAIT", "duration_ms": 10},
                 {"id": "get", "action": "GET", "delay_ms": 5, "path": "/ojs/v1/jobs/{{steps.enqueue.response.body.job.id}}",
                  "assertions": {"status": 200, "body": {"$.path": "/ojs/v1/jobs/job-1", "$.raw": "",
                    "$.method": "GET"}}},
                 {"id": "ack", "action": "POST", "path": "/ojs/v1/workers/ack",
                  "body": {"job_id": "{{steps.enqueue.response.body.job.id}}", "attempt": "{{steps.enqueue.response.body.job.attempt}}"},
                  "assertions": {"body": {"$.auth": "Bearer worker", "$.content_type": "application/openjobspec+json",
                    "$.raw": "{\\"job_id\\":\\"job-1\\",\\"attempt\\":0}"}}},
                 {"id": "raw", "action": "POST", "path": "/ojs/v1/jobs", "raw_body": "{ invalid json }",
                  "assertions": {"body": {"$.raw": "{ invalid json }"}}},
                 {"id": "null-body", "action": "POST", "path": "/x", "headers": {"Content-Type": "application/json"}, "body": null,
                  "assertions": {"body": {"$.raw": "", "$.content_type": "application/json"}}}]
                """));
        runner.run(c);
        assertThat(seen).containsExactly("POST /ojs/v1/jobs", "GET /ojs/v1/jobs/job-1", "POST /ojs/v1/workers/ack",
                "POST /ojs/v1/jobs", "POST /x");
    }

    @Test
    void parallelStepsAreSentTogetherAndTheExclusiveClaimIsChecked() throws IOException {
        OjsCase c = write(caseOf("""
                [{"id": "enqueue", "action": "POST", "path": "/ojs/v1/jobs", "body": {}, "assertions": {"status": 201}},
                 {"id": "a", "action": "POST", "path": "/ojs/v1/workers/fetch", "parallel_with": "b", "body": {},
                  "assertions": {"status": 200, "body": {"$.together": true}}},
                 {"id": "b", "action": "POST", "path": "/ojs/v1/workers/fetch", "parallel_with": "a", "body": {},
                  "assertions": {"status": 200, "body": {"$.together": true}}},
                 {"id": "check", "action": "ASSERT", "assertions": {"exclusive_claim": {
                   "job_id": "{{steps.enqueue.response.body.job.id}}",
                   "fetches": ["{{steps.a.response.body.jobs}}", "{{steps.b.response.body.jobs}}"],
                   "exactly_one_has_job": true, "exactly_one_empty": true}}}]
                """));
        runner.run(c);
    }

    @Test
    void aFailureNamesTheCaseTheStepTheAssertionAndTheAnswer() throws IOException {
        OjsCase c = write(caseOf("""
                [{"id": "step-1", "action": "GET", "path": "/big", "assertions": {"status": 200, "body": {"$.method": "POST"}}},
                 {"id": "never", "action": "GET", "path": "/never"}]
                """));
        assertThatThrownBy(() -> runner.run(c)).isInstanceOf(OjsRunner.OjsFailure.class)
                .hasMessageContaining("T-1 operations/stub-case: step 'step-1' (GET /big) failed:")
                .hasMessageContaining("status: expected 200, was 500")
                .hasMessageContaining("body $.method: expected \"POST\", was \"GET\"")
                .hasMessageContaining("response: 500 {\"method\":\"GET\"")
                .hasMessageContaining("... (5")
                .satisfies(e -> assertThat(e.getMessage().length()).isLessThan(3000));
        assertThat(seen).containsExactly("GET /big");
    }

    @Test
    void unresolvedTemplatesStopTheStepBeforeItIsSent() throws IOException {
        OjsCase c = write(caseOf("""
                [{"id": "get", "action": "GET", "path": "/ojs/v1/jobs/{{steps.nope.response.body.job.id}}"}]
                """));
        assertThatThrownBy(() -> runner.run(c)).hasMessageContaining("unresolved templates in the request")
                .hasMessageContaining("{{steps.nope.response.body.job.id}}");
        assertThat(seen).isEmpty();
    }

    @Test
    void unresolvedTemplatesInAssertionsFailEvenWhereTheMatcherWouldPass() throws IOException {
        OjsCase c = write(caseOf("""
                [{"id": "get", "action": "GET", "path": "/x",
                  "assertions": {"body": {"$.jobs[?(@.id=='{{steps.nope.response.body.id}}')]": "absent"}}}]
                """));
        assertThatThrownBy(() -> runner.run(c)).hasMessageContaining("unresolved templates in the assertions");
    }

    @Test
    void teardownRunsAfterAFailedStep() throws IOException {
        OjsCase c = write("""
                {"test_id": "T-2", "level": 0, "category": "operations", "name": "stub-case",
                 "setup": {"steps": [{"id": "prepare", "action": "GET", "path": "/setup", "assertions": {"status": 200}}]},
                 "steps": [{"id": "fails", "action": "GET", "path": "/x", "assertions": {"status": 201}}],
                 "teardown": [{"id": "clean", "action": "DELETE", "path": "/teardown"}]}
                """);
        assertThatThrownBy(() -> runner.run(c)).hasMessageContaining("step 'fails'");
        assertThat(seen).containsExactly("GET /setup", "GET /x", "DELETE /teardown");
    }

    @Test
    void unknownFieldsAndActionsAreRejected() throws IOException {
        OjsCase field = write(caseOf("[{\"id\": \"s\", \"action\": \"GET\", \"path\": \"/x\", \"expect\": {}}]"));
        assertThatThrownBy(() -> runner.run(field)).hasMessageContaining("unknown step field 'expect'");
        OjsCase action = write(caseOf("[{\"id\": \"s\", \"action\": \"SLEEP\"}]"));
        assertThatThrownBy(() -> runner.run(action)).hasMessageContaining("unknown action 'SLEEP'");
        OjsCase duplicate = write(caseOf("[{\"id\": \"s\", \"action\": \"WAIT\"}, {\"id\": \"s\", \"action\": \"WAIT\"}]"));
        assertThatThrownBy(() -> runner.run(duplicate)).hasMessageContaining("an id of its own");
        OjsCase apart = write(caseOf("[{\"id\": \"a\", \"action\": \"GET\", \"path\": \"/x\", \"parallel_with\": \"c\"},"
                + " {\"id\": \"b\", \"action\": \"GET\", \"path\": \"/x\"}, {\"id\": \"c\", \"action\": \"GET\", \"path\": \"/x\"}]"));
        assertThatThrownBy(() -> runner.run(apart)).hasMessageContaining("do not directly follow it: [c]");
        assertThat(seen).isEmpty();
    }
}
