package io.blackboard.ojs;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import io.blackboard.QueryPlan;
import io.blackboard.TestRows;
import io.blackboard.platform.scheduling.Sweeper;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import tools.jackson.databind.JsonNode;

/**
 * The OJS binding against the guarantees of the native model, beyond what the public
 * conformance cases check (OjsConformanceTest): exclusive claims under concurrency, fenced acks,
 * OJS and native workers on one function block, OJS workers as Blackboard workers with their
 * directives, leases taken back by the sweeper, roles and bad input.
 */
class OjsBindingTest extends IntegrationTest {

    @Autowired
    List<Sweeper> sweepers;

    @Autowired
    DataSource dataSource;

    /**
     * The fetch's update finds the jobs it picked by their ids, never by walking the PENDING index
     * (every claimable job), even were the primary key not there.
     */
    @Test
    void theFetchsUpdateCannotWalkThePendingIndex() throws SQLException {
        UUID worker = registerWorker("w");
        TestRows.jobsInEveryState(jdbc, registerBlocks(worker, List.of(block("echo", "1"))).getFirst(), 1000);

        QueryPlan plan = QueryPlan.without(dataSource, "job_pkey", OjsStore.JOB_FETCH,
                new MapSqlParameterSource("workerId", worker).addValue("queues", "{default}").addValue("limit", 10)
                        .addValue("leaseMs", null));
        assertThat(plan.conditionsOn("job_claim")).as(plan::toString)
                .allSatisfy(condition -> assertThat(condition).matches("^\\(+function_block_id = .*"));
    }

    private Api ojs() {
        return api.as("test-all");
    }

    private String enqueue(String type, String queue, Map<String, Object> options) {
        Map<String, Object> opts = new java.util.HashMap<>(options);
        opts.put("queue", queue);
        Api.Response created = api.as("test-engine").post("/ojs/v1/jobs",
                Map.of("type", type, "args", List.of(Map.of("n", 1)), "options", opts));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return created.at("/job/id").asString();
    }

    private Api.Response fetch(String worker, String queue) {
        return api.as("test-ojs-worker").post("/ojs/v1/workers/fetch",
                Map.of("queues", List.of(queue), "worker_id", worker));
    }

    private Sweeper sweeper(String name) {
        return sweepers.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void concurrentFetchesClaimEachJobExactlyOnce() throws Exception {
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            jobs.add(Map.of("type", "net.check", "args", List.of(Map.of("n", i)), "options", Map.of("queue", "race")));
        }
        assertThat(api.as("test-engine").post("/ojs/v1/jobs/batch", Map.of("jobs", jobs)).status()).isEqualTo(201);

        Map<String, String> claimedBy = new ConcurrentHashMap<>();
        Set<String> doubles = ConcurrentHashMap.newKeySet();
        try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
            List<Future<?>> runs = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                String worker = "racer-" + w;
                runs.add(pool.submit(() -> {
                    while (true) {
                        Api.Response got = api.as("test-ojs-worker").post("/ojs/v1/workers/fetch",
                                Map.of("queues", List.of("race"), "worker_id", worker, "count", 3));
                        assertThat(got.status()).as(got.toString()).isEqualTo(200);
                        if (got.at("/jobs").isEmpty()) {
                            return null;
                        }
                        for (JsonNode job : got.at("/jobs")) {
                            if (claimedBy.putIfAbsent(job.get("id").asString(), worker) != null) {
                                doubles.add(job.get("id").asString());
                            }
                            Api.Response ack = api.as("test-ojs-worker").post("/ojs/v1/workers/ack",
                                    Map.of("job_id", job.get("id").asString(), "worker_id", worker));
                            assertThat(ack.status()).as(ack.toString()).isEqualTo(200);
                        }
                    }
                }));
            }
            for (Future<?> run : runs) {
                run.get();
            }
        }

        assertThat(doubles).isEmpty();
        assertThat(claimedBy).hasSize(300);
        assertThat(jdbc.sql("select count(*) from job where queue = 'race' and outcome = 'SUCCESS'")
                .query(Long.class).single()).isEqualTo(300);
        assertThat(jdbc.sql("select count(*) from job_event where kind = 'CLAIMED'").query(Long.class).single())
                .isEqualTo(300);
        assertThat(new HashSet<>(claimedBy.values())).as("the work spread over the workers").hasSizeGreaterThan(1);
    }

    @Test
    void anAckOrNackOfAJobAnotherWorkerHoldsIsRefusedAndChangesNothing() {
        String id = enqueue("net.check", "fenced", Map.of());
        assertThat(fetch("alpha", "fenced").at("/jobs/0/id").asString()).isEqualTo(id);
        String before = row(id);

        Api.Response stolen = api.as("test-ojs-worker").post("/ojs/v1/workers/ack",
                Map.of("job_id", id, "worker_id", "beta"));
        Api.Response failed = api.as("test-ojs-worker").post("/ojs/v1/workers/nack",
                Map.of("job_id", id, "worker_id", "beta", "error", Map.of("code", "x", "message", "no")));

        assertThat(stolen.status()).isEqualTo(409);
        assertThat(stolen.at("/error/code").asString()).isEqualTo("conflict");
        assertThat(stolen.at("/error/message").asString()).contains("alpha");
        assertThat(failed.status()).isEqualTo(409);
        assertThat(row(id)).isEqualTo(before);

        // the lease runs out; beta fetches it again; alpha's late ack is no longer alpha's to give
        jdbc.sql("update job set deadline = now() - interval '1 second' where id = :id").param("id", UUID.fromString(id))
                .update();
        sweeper("stuck-jobs").runOnce();
        assertThat(info(id).at("/job/state").asString()).isEqualTo("available");
        assertThat(info(id).at("/job/errors/0/code").asString()).isEqualTo("stuck_timeout");
        assertThat(fetch("beta", "fenced").at("/jobs/0/attempt").asInt()).isEqualTo(2);
        assertThat(api.as("test-ojs-worker").post("/ojs/v1/workers/ack", Map.of("job_id", id, "worker_id", "alpha"))
                .status()).isEqualTo(409);
        assertThat(api.as("test-ojs-worker").post("/ojs/v1/workers/ack", Map.of("job_id", id, "worker_id", "beta"))
                .at("/state").asString()).isEqualTo("completed");
    }

    @Test
    void aLapsedLeaseWithNoAttemptLeftDiscardsTheJob() {
        String id = enqueue("net.check", "lapse", Map.of("retry", Map.of("max_attempts", 1)));
        fetch("gone", "lapse");
        jdbc.sql("update job set deadline = now() - interval '1 second' where id = :id").param("id", UUID.fromString(id))
                .update();

        sweeper("stuck-jobs").runOnce();

        JsonNode job = info(id).at("/job");
        assertThat(job.get("state").asString()).isEqualTo("discarded");
        assertThat(job.at("/error/code").asString()).isEqualTo("stuck_timeout");
        assertThat(job.has("discarded_at")).isTrue();
    }

    @Test
    void aNativeWorkerServesOjsJobsOfItsBlockAndTheOjsWorkerCannotAckItsClaim() {
        String id = enqueue("config.backup", "mixed", Map.of());
        UUID native_ = registerWorker("native");
        UUID block = registerBlocks(native_, List.of(block("config.backup", "0"))).getFirst();
        assertThat(jdbc.sql("select function_block_id from job where id = :id").param("id", UUID.fromString(id))
                .query(UUID.class).single()).as("the OJS type is the block's name").isEqualTo(block);

        Api.Response polled = api.post("/blackboard/job", Map.of("workerId", native_, "limit", 1));
        assertThat(polled.at("/0/id").asString()).isEqualTo(id);
        assertThat(polled.at("/0/payload/n").asInt()).as("args [object] is the payload").isEqualTo(1);
        assertThat(fetch("ojs-1", "mixed").at("/jobs").isEmpty()).as("claimed once only").isTrue();
        assertThat(api.as("test-ojs-worker").post("/ojs/v1/workers/ack", Map.of("job_id", id)).status())
                .as("an OJS ack never lands on a native worker's claim").isEqualTo(409);

        Api.Response pushed = api.post("/blackboard/job/result", Map.of("jobId", id, "workerId", native_,
                "status", "SUCCESS", "result", Map.of("saved", true)));
        assertThat(pushed.status()).as(pushed.toString()).isEqualTo(200);

        JsonNode job = info(id).at("/job");
        assertThat(job.get("state").asString()).isEqualTo("completed");
        assertThat(job.at("/result/saved").asBoolean()).isTrue();
    }

    @Test
    void anOjsWorkerIsABlackboardWorkerWhoseDirectiveIsItsHeartbeatState() {
        String id = enqueue("net.check", "directed", Map.of());
        fetch("edge-7", "directed");
        JsonNode listed = null;
        for (JsonNode worker : api.get("/workers").body()) {
            if (worker.get("name").asString().equals("edge-7")) {
                listed = worker;
            }
        }
        assertThat(listed).as("GET /workers lists it").isNotNull();
        String workerId = listed.get("id").asString();
        assertThat(api.get("/workers/" + workerId + "/jobs").at("/0/id").asString()).isEqualTo(id);

        assertThat(api.put("/workers/" + workerId + "/directive", Map.of("directive", "QUIET")).status()).isEqualTo(200);
        Api.Response beat = api.as("test-ojs-worker").post("/ojs/v1/workers/heartbeat",
                Map.of("worker_id", "edge-7", "active_jobs", List.of(id)));
        assertThat(beat.at("/state").asString()).isEqualTo("quiet");
        assertThat(beat.at("/jobs_extended/0").asString()).isEqualTo(id);
        enqueue("net.check", "directed", Map.of());
        assertThat(fetch("edge-7", "directed").at("/jobs").isEmpty()).as("a quiet worker gets no jobs").isTrue();

        api.put("/workers/" + workerId + "/directive", Map.of("directive", "TERMINATE"));
        assertThat(api.as("test-ojs-worker").post("/ojs/v1/workers/heartbeat", Map.of("worker_id", "edge-7"))
                .at("/state").asString()).isEqualTo("terminate");
        assertThat(info(id).at("/job/state").asString()).as("a heartbeat releases nothing").isEqualTo("active");
    }

    @Test
    void aHeartbeatNamesTheListedJobsTheWorkerNoLongerHolds() {
        String id = enqueue("net.check", "beats", Map.of());
        fetch("w1", "beats");
        assertThat(api.as("test-engine").delete("/ojs/v1/jobs/" + id).status()).isEqualTo(200);

        Api.Response beat = api.as("test-ojs-worker").post("/ojs/v1/workers/heartbeat",
                Map.of("worker_id", "w1", "active_job_ids", List.of(id)));

        assertThat(beat.at("/jobs_extended").isEmpty()).isTrue();
        assertThat(beat.at("/cancelled_job_ids/0").asString()).isEqualTo(id);
    }

    @Test
    void eachRoleReachesOnlyItsEndpoints() {
        Map<String, Object> job = Map.of("type", "a.b", "args", List.of());
        assertThat(api.as(null).post("/ojs/v1/jobs", job).status()).isEqualTo(401);
        assertThat(api.as("test-ojs-worker").post("/ojs/v1/jobs", job).status()).isEqualTo(403);
        assertThat(api.as("test-engine").post("/ojs/v1/workers/fetch", Map.of("queues", List.of("default")))
                .status()).isEqualTo(403);
        assertThat(api.as("test-worker").post("/ojs/v1/workers/fetch", Map.of("queues", List.of("default")))
                .status()).isEqualTo(403);
        assertThat(api.as(null).get("/ojs/manifest").status()).isEqualTo(200);
        assertThat(api.as(null).get("/ojs/v1/health").at("/status").asString()).isEqualTo("ok");
        assertThat(count("job")).isZero();
    }

    @Test
    void badInputIsAnOjsErrorAndChangesNothing() {
        Api.Response text = api.as("test-engine").send("POST", "/ojs/v1/jobs", "type=a.b");
        assertThat(text.status()).isEqualTo(400);
        assertThat(text.at("/error/code").asString()).isEqualTo("invalid_payload");
        assertThat(text.at("/error/request_id").asString()).isNotBlank();
        assertThat(text.headers().firstValue("OJS-Version")).contains("1.0");

        Api.Response policy = api.as("test-engine").post("/ojs/v1/jobs", Map.of("type", "a.b", "args", List.of(),
                "options", Map.of("retry", Map.of("initial_interval", "one second"))));
        assertThat(policy.status()).isEqualTo(422);
        assertThat(policy.at("/error/message").asString()).contains("initial_interval");

        Api.Response batch = api.as("test-engine").post("/ojs/v1/jobs/batch", Map.of("jobs", List.of(
                Map.of("type", "a.b", "args", List.of()), Map.of("type", "A.B", "args", List.of()))));
        assertThat(batch.status()).isEqualTo(400);
        assertThat(batch.at("/error/message").asString()).startsWith("jobs[1]: type");
        assertThat(count("job")).as("all or none").isZero();

        Api.Response unknown = ojs().post("/ojs/v1/workers/ack", Map.of("job_id", UUID.randomUUID().toString()));
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.at("/error/code").asString()).isEqualTo("not_found");
    }

    /** active_jobs that is no array is refused, never ignored (ContractTest found it ignored). */
    @Test
    void aHeartbeatWhoseActiveJobsIsNoArrayIsRefused() {
        Api.Response beat = ojs().post("/ojs/v1/workers/heartbeat", Map.of("worker_id", "w", "active_jobs", "0"));

        assertThat(beat.status()).as(beat.toString()).isEqualTo(400);
        assertThat(beat.at("/error/code").asString()).isEqualTo("invalid_request");
        assertThat(count("worker")).as("no worker made").isZero();
    }

    @Test
    void aLateAnswerNamingAnEarlierAttemptIsRefused() {
        String id = enqueue("net.check", "attempts", Map.of());
        assertThat(fetch("w", "attempts").at("/jobs/0/attempt").asInt()).isEqualTo(1);
        jdbc.sql("update job set deadline = now() - interval '1 second' where id = :id").param("id", UUID.fromString(id))
                .update();
        sweeper("stuck-jobs").runOnce();
        assertThat(fetch("w", "attempts").at("/jobs/0/attempt").asInt()).isEqualTo(2);
        String before = row(id);

        Api.Response late = api.as("test-ojs-worker").post("/ojs/v1/workers/ack",
                Map.of("job_id", id, "worker_id", "w", "attempt", 1));

        assertThat(late.status()).isEqualTo(409);
        assertThat(late.at("/error/message").asString()).contains("attempt 2");
        assertThat(row(id)).isEqualTo(before);
        assertThat(api.as("test-ojs-worker").post("/ojs/v1/workers/ack",
                Map.of("job_id", id, "worker_id", "w", "attempt", 2)).at("/state").asString()).isEqualTo("completed");
    }

    @Test
    void aRegisteredBlocksSchemasHoldForOjsJobsToo() {
        UUID worker = registerWorker("schemas");
        registerBlocks(worker, List.of(Map.of("name", "config.backup", "version", "1.0.0",
                "paramsJsonSchema", Map.of("type", "object", "required", List.of("host")),
                "resultDataJsonSchema", Map.of("type", "object", "required", List.of("saved")))));

        Api.Response bad = api.as("test-engine").post("/ojs/v1/jobs",
                Map.of("type", "config.backup", "args", List.of(Map.of("port", 22))));
        assertThat(bad.status()).isEqualTo(422);
        assertThat(bad.at("/error/message").asString()).contains("paramsJsonSchema").contains("host");
        assertThat(count("job")).isZero();

        String id = api.as("test-engine").post("/ojs/v1/jobs", Map.of("type", "config.backup",
                "args", List.of(Map.of("host", "r1")), "options", Map.of("queue", "backups"))).at("/job/id").asString();
        fetch("ojs-backup", "backups");
        String before = row(id);
        Api.Response broken = api.as("test-ojs-worker").post("/ojs/v1/workers/ack",
                Map.of("job_id", id, "result", Map.of("bytes", 10)));
        assertThat(broken.status()).isEqualTo(422);
        assertThat(broken.at("/error/message").asString()).contains("resultDataJsonSchema");
        assertThat(row(id)).isEqualTo(before);
        assertThat(api.as("test-ojs-worker").post("/ojs/v1/workers/ack",
                Map.of("job_id", id, "result", Map.of("saved", true))).status()).isEqualTo(200);
    }

    @Test
    void anErrorsTypeMakesItFinalOnlyForOjsJobs() {
        UUID worker = registerWorker("native-types");
        UUID block = registerBlocks(worker, List.of(block("native.check", "1"))).getFirst();
        String nativeJob = api.as("test-engine").post("/blackboard/jobs", Map.of("functionBlockId", block,
                "type", "EXECUTE", "retryPolicy", Map.of("maxAttempts", 3, "nonRetryableErrors", List.of("ValueError"))))
                .at("/id").asString();
        api.post("/blackboard/job", Map.of("workerId", worker, "limit", 1));
        api.post("/blackboard/job/result", Map.of("jobId", nativeJob, "workerId", worker, "status", "FAILURE",
                "error", Map.of("code", "HANDLER", "type", "ValueError", "message", "bad")));
        assertThat(api.as("test-engine").get("/blackboard/jobs/" + nativeJob).at("/scheduled").asBoolean())
                .as("a native policy names codes: the SDK's exception type does not make it final").isTrue();

        String ojsJob = enqueue("ojs.check", "types", Map.of("retry", Map.of("non_retryable_errors", List.of("Value*"))));
        fetch("t", "types");
        Api.Response failed = api.as("test-ojs-worker").post("/ojs/v1/workers/nack", Map.of("job_id", ojsJob,
                "error", Map.of("code", "handler_error", "message", "bad", "type", "ValueError")));
        assertThat(failed.at("/state").asString()).isEqualTo("discarded");
    }

    @Test
    void fieldsOnlyTheServerSetsAreNotTakenFromTheProducer() {
        Map<String, Object> job = new java.util.HashMap<>(Map.of("type", "a.b", "args", List.of(),
                "result", Map.of("forged", true), "completed_at", "2020-01-01T00:00:00Z", "x_kept", 1));
        JsonNode created = api.as("test-engine").post("/ojs/v1/jobs", job).at("/job");

        assertThat(created.has("result")).isFalse();
        assertThat(created.has("completed_at")).isFalse();
        assertThat(created.get("x_kept").asInt()).isEqualTo(1);
    }

    @Test
    void whatWasStoredIsShownAgainThoughItIsDeeperThanARequestMayBe() {
        String deep = "{\"a\":".repeat(30) + "1" + "}".repeat(30);
        Api.Response created = api.as("test-engine").send("POST", "/ojs/v1/jobs",
                "{\"type\": \"a.b\", \"args\": [], \"x_deep\": " + deep + "}");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);

        assertThat(info(created.at("/job/id").asString()).status()).isEqualTo(200);
    }

    @Test
    void theFrameworksRefusalsAreOjsErrorsWithTheirStatus() {
        Api.Response limit = api.as("test-engine").get("/ojs/v1/events?limit=abc");
        assertThat(limit.status()).isEqualTo(400);
        assertThat(limit.at("/error/code").asString()).isEqualTo("invalid_request");

        Api.Response huge = api.as("test-engine").send("POST", "/ojs/v1/jobs",
                "{\"type\": \"a.b\", \"args\": [], \"options\": {\"priority\": 99999999999999999999}}");
        assertThat(huge.status()).isEqualTo(400);
        assertThat(huge.at("/error/message").asString()).contains("priority");

        Api.Response nul = api.as("test-engine").send("POST", "/ojs/v1/jobs",
                "{\"type\": \"a.b\", \"args\": [\"a\\u0000b\"]}");
        assertThat(nul.status()).isEqualTo(400);
        assertThat(api.as("test-engine").send("PUT", "/ojs/v1/jobs/" + UUID.randomUUID(), "{}").status())
                .isEqualTo(405);
        assertThat(count("job")).isZero();
    }

    @Test
    void anEngineReachesOnlyOjsDeadLettersThroughTheBinding() {
        UUID worker = registerWorker("native-dead");
        UUID block = registerBlocks(worker, List.of(block("native.dead", "1"))).getFirst();
        String parked = api.as("test-engine").post("/blackboard/jobs", Map.of("functionBlockId", block,
                "type", "EXECUTE", "retryPolicy", Map.of("maxAttempts", 1, "onExhausted", "PARK"))).at("/id").asString();
        api.post("/blackboard/job", Map.of("workerId", worker, "limit", 1));
        api.post("/blackboard/job/result", Map.of("jobId", parked, "workerId", worker, "status", "FAILURE"));
        String before = row(parked);

        assertThat(api.as("test-engine").get("/ojs/v1/dead-letter").at("/jobs").isEmpty()).isTrue();
        assertThat(api.as("test-engine").post("/ojs/v1/dead-letter/" + parked + "/retry", Map.of()).status())
                .isEqualTo(404);
        assertThat(api.as("test-engine").delete("/ojs/v1/dead-letter/" + parked).status()).isEqualTo(404);
        assertThat(row(parked)).isEqualTo(before);
    }

    private Api.Response info(String id) {
        return api.as("test-engine").get("/ojs/v1/jobs/" + id);
    }

    private String row(String id) {
        return jdbc.sql("select row_to_json(j)::text from job j where id = :id").param("id", UUID.fromString(id))
                .query(String.class).single();
    }
}
