package io.blackboard.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blackboard.sdk.StubServer.Request;
import io.blackboard.sdk.StubServer.Response;
import io.blackboard.sdk.internal.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class EngineTest {

    private StubServer stub;
    private BlackboardEngine engine;

    @BeforeEach
    void start() throws Exception {
        stub = new StubServer();
        engine = BlackboardEngine.builder().baseUrl(stub.url()).token("dev-engine-token").build();
    }

    @AfterEach
    void stop() {
        engine.close();
        stub.close();
    }

    private static Map<String, Object> view(String id, String status) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("id", id);
        job.put("functionBlockId", "fb-1");
        job.put("type", "EXECUTE");
        job.put("status", status);
        job.put("payload", Map.of("host", "r1"));
        job.put("attempt", 0);
        return job;
    }

    @Test
    void creates_one_job_with_every_field_it_was_given() {
        stub.on("POST /blackboard/jobs", r -> Response.json(201, view("j1", "PENDING")));

        Job job = engine.createJob(NewJob.of("fb-1", JobType.EXECUTE).payload(Map.of("host", "r1")).priority(5)
                .maxAttempts(3).selector(Map.of("site", "a")).correlationId("wf-42").idempotencyKey("wf-42/r1"));

        assertThat(job.id()).isEqualTo("j1");
        assertThat(job.status()).isEqualTo("PENDING");
        assertThat(job.params()).containsEntry("host", "r1");
        Request request = stub.requests("POST /blackboard/jobs").get(0);
        assertThat(request.token()).isEqualTo("dev-engine-token");
        assertThat(request.json()).containsEntry("functionBlockId", "fb-1").containsEntry("type", "EXECUTE")
                .containsEntry("payload", Map.of("host", "r1")).containsEntry("priority", 5L)
                .containsEntry("maxAttempts", 3L).containsEntry("selector", Map.of("site", "a"))
                .containsEntry("correlationId", "wf-42").containsEntry("idempotencyKey", "wf-42/r1");
    }

    @Test
    void creates_a_job_by_block_name_and_version_range_scheduled_with_a_retry_policy_and_a_timeout() {
        stub.on("POST /blackboard/jobs", r -> Response.json(201, view("j1", "PENDING")));

        engine.createJob(NewJob.byName("configBackup", "^1.2", JobType.EXECUTE).payload(Map.of("host", "r1"))
                .runAt(Instant.parse("2026-11-22T03:00:00Z"))
                .retryPolicy(RetryPolicy.defaults().maxAttempts(5).initialInterval(Duration.ofSeconds(1))
                        .multiplier(2.5).maxInterval(Duration.ofMinutes(1)).jitter(0.2)
                        .nonRetryableErrors("AUTH_*", "CONFIG").onExhausted(RetryPolicy.OnExhausted.PARK))
                .executionTimeout(Duration.ofMinutes(10)));
        Instant at = Instant.parse("2026-11-22T03:00:00Z");
        engine.createJobs(List.of(NewJob.execute("fb-1", Map.of()).runAt(at).delay(Duration.ofSeconds(30)),
                NewJob.execute("fb-1", Map.of()).delay(Duration.ofSeconds(30)).runAt(at),
                NewJob.byName("configBackup", null, JobType.ROLLBACK).retryPolicy(RetryPolicy.defaults())));

        List<Request> posts = stub.requests("POST /blackboard/jobs");
        assertThat(posts.get(0).json()).isEqualTo(Map.of("functionBlockName", "configBackup",
                "functionBlockVersion", "^1.2", "type", "EXECUTE", "payload", Map.of("host", "r1"),
                "runAt", "2026-11-22T03:00:00Z",
                "retryPolicy", Map.of("maxAttempts", 5L, "initialIntervalMs", 1000L, "multiplier", 2.5,
                        "maxIntervalMs", 60_000L, "jitter", 0.2, "nonRetryableErrors", List.of("AUTH_*", "CONFIG"),
                        "onExhausted", "PARK"),
                "executionTimeoutMs", 600_000L));
        List<Object> batch = Json.array(Json.parse(posts.get(1).body()));
        assertThat(Json.object(batch.get(0))).as("the last of runAt and delay wins").containsEntry("delayMs", 30_000L)
                .doesNotContainKey("runAt");
        assertThat(Json.object(batch.get(1))).containsEntry("runAt", "2026-11-22T03:00:00Z")
                .doesNotContainKey("delayMs");
        assertThat(Json.object(batch.get(2))).isEqualTo(Map.of("functionBlockName", "configBackup",
                "type", "ROLLBACK", "retryPolicy", Map.of()));
    }

    @Test
    void reads_a_parked_job_with_its_errors() {
        stub.on("GET /blackboard/jobs/*", r -> {
            Map<String, Object> v = view("j1", "PARKED");
            v.putAll(JobTest.NEW_MEMBERS);
            return Response.json(200, v);
        });

        Job job = engine.getJob("j1");

        assertThat(job.status()).isEqualTo("PARKED");
        assertThat(job.errors()).hasSize(1);
        assertThat(job.retryPolicy()).containsEntry("onExhausted", "PARK");
    }

    @Test
    void creates_a_batch_as_one_array() {
        stub.on("POST /blackboard/jobs", r -> Response.json(201, List.of(view("a", "PENDING"), view("b", "PENDING"))));

        List<Job> jobs = engine.createJobs(List.of(NewJob.execute("fb-1", Map.of("n", 1)),
                NewJob.execute("fb-1", Map.of("n", 2))));

        assertThat(jobs).extracting(Job::id).containsExactly("a", "b");
        assertThat(Json.parse(stub.requests("POST /blackboard/jobs").get(0).body())).isInstanceOf(List.class);
    }

    @Test
    void reads_and_cancels() {
        stub.on("GET /blackboard/jobs/*", r -> Response.json(200, view("j1", "POLLED")));
        stub.on("POST /blackboard/jobs/*/cancel", r -> {
            Map<String, Object> v = view("j1", "PUSHED");
            v.put("outcome", "CANCELLED");
            return Response.json(200, v);
        });

        assertThat(engine.getJob("j1").status()).isEqualTo("POLLED");
        assertThat(engine.cancelJob("j1").outcome()).isEqualTo("CANCELLED");
        assertThat(stub.requests("POST /blackboard/jobs/*/cancel").get(0).path()).isEqualTo("/blackboard/jobs/j1/cancel");
    }

    @Test
    void an_error_answer_is_an_exception_with_its_problem() {
        stub.on("POST /blackboard/jobs", r -> Response.json(422, Map.of("type", "/problems/schema-violation",
                "detail", "payload: host missing", "violations", List.of("$.host: required"))));

        assertThatThrownBy(() -> engine.createJob(NewJob.execute("fb-1", Map.of())))
                .isInstanceOfSatisfying(BlackboardApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(422);
                    assertThat(e.problemType()).isEqualTo("/problems/schema-violation");
                    assertThat(e.problem()).containsEntry("violations", List.of("$.host: required"));
                    assertThat(e.getMessage()).contains("payload: host missing");
                });
    }

    @Test
    void a_busy_server_is_asked_again_after_retry_after() {
        stub.once("GET /blackboard/jobs/*", Response.problem(503, "/problems/overloaded").withHeader("Retry-After", "0"));
        stub.on("GET /blackboard/jobs/*", r -> Response.json(200, view("j1", "PENDING")));

        assertThat(engine.getJob("j1").id()).isEqualTo("j1");
        assertThat(stub.count("GET /blackboard/jobs/*")).isEqualTo(2);
    }

    @Test
    void finds_a_function_block_by_name_and_version() {
        stub.on("GET /function-blocks", r -> Response.json(200, List.of(
                Map.of("id", "fb-1", "name", "configBackup", "version", "1.0.0"),
                Map.of("id", "fb-2", "name", "configBackup", "version", "1.1.0"))));

        assertThat(engine.functionBlockId("configBackup", "1.1.0")).isEqualTo("fb-2");
        assertThatThrownBy(() -> engine.functionBlockId("configBackup", "9")).isInstanceOf(BlackboardException.class);
    }

    @Test
    void the_feed_follows_next_and_long_polls() {
        stub.once("GET /blackboard/results", r -> Response.json(200, Map.of("results",
                List.of(view("a", "PUSHED"), view("b", "PUSHED")), "next", "10-1")));
        stub.once("GET /blackboard/results", r -> Response.json(200, Map.of("results", List.of(), "next", "10-1")));
        stub.once("GET /blackboard/results", r -> Response.json(200, Map.of("results",
                List.of(view("c", "PUSHED")), "next", "12-0")));

        ResultFeed feed = engine.followResults("0-0");
        assertThat(feed.next().id()).isEqualTo("a");
        assertThat(feed.cursor()).as("b not yet returned: resume from the page's start").isEqualTo("0-0");
        assertThat(feed.next().id()).isEqualTo("b");
        assertThat(feed.cursor()).isEqualTo("10-1");
        Optional<Job> c = feed.poll(Duration.ofSeconds(5));
        assertThat(c).map(Job::id).contains("c");
        assertThat(feed.cursor()).isEqualTo("12-0");
        List<String> queries = stub.requests("GET /blackboard/results").stream().map(Request::query).toList();
        assertThat(queries).hasSize(3);
        assertThat(queries.get(0)).startsWith("after=0-0&limit=100&waitMs=");
        assertThat(queries.get(1)).startsWith("after=10-1&");
        assertThat(queries.get(2)).startsWith("after=10-1&");
    }
}
