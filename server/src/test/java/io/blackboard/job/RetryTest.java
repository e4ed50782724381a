package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.blackboard.Api;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/** Retries with backoff of failures the worker reports (issue 24): only under a retry policy. */
class RetryTest extends BlackboardTest {

    private static final Map<String, Object> POLICY = Map.of("maxAttempts", 3, "initialIntervalMs", 60_000,
            "multiplier", 2.0);

    @Autowired
    DueJobs due;

    private final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    @Test
    void aReportedFailureRunsAgainAfterItsBackoffUntilAttemptsRunOut() {
        workerServingEcho(Map.of());
        UUID id = createJob(echo, Map.of("retryPolicy", POLICY));
        assertThat(job(id).get("maxAttempts").asInt()).isEqualTo(3);

        assertThat(claim(worker, 1)).containsExactly(id);
        OffsetDateTime failedAt = databaseNow();
        Api.Response first = fail(id, 1, Map.of("code", "E_TIMEOUT", "message", "device did not answer"));
        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        assertThat(first.at("/status").asString()).isEqualTo("PENDING");
        assertThat(first.at("/scheduled").asBoolean()).isTrue();
        assertThat(first.at("/attempt").asInt()).isEqualTo(1);
        assertThat(first.at("/outcome").isNull()).isTrue();
        assertThat(secondsAfter(failedAt, first.at("/runAt"))).as("initialIntervalMs").isCloseTo(60, within(2.0));
        assertThat(claim(worker, 1)).as("waits out its backoff").isEmpty();

        makeDue(id);
        assertThat(claim(worker, 1)).containsExactly(id);
        assertThat(job(id).get("attempt").asInt()).isEqualTo(2);
        failedAt = databaseNow();
        Api.Response second = fail(id, 2, Map.of("code", "E_TIMEOUT", "message", "again"));
        assertThat(secondsAfter(failedAt, second.at("/runAt"))).as("times the multiplier").isCloseTo(120, within(2.0));

        makeDue(id);
        assertThat(claim(worker, 1)).containsExactly(id);
        Api.Response last = fail(id, 3, Map.of("code", "E_TIMEOUT", "message", "for good"));
        assertThat(last.at("/status").asString()).isEqualTo("PUSHED");
        assertThat(last.at("/outcome").asString()).isEqualTo("FAILURE");
        assertThat(last.at("/failureReason").asString()).isEqualTo("WORKER_REPORTED");
        assertThat(last.at("/error/message").asString()).isEqualTo("for good");

        JsonNode errors = job(id).get("errors");
        assertThat(errors.valueStream().map(e -> e.get("attempt").asInt()).toList()).containsExactly(1, 2, 3);
        assertThat(errors.get(0).get("error").get("message").asString()).isEqualTo("device did not answer");
        assertThat(errors.get(0).get("workerId").asString()).isEqualTo(worker.toString());
        assertThat(events(id)).containsExactly("CREATED", "CLAIMED", "RETRYING", "DUE", "CLAIMED", "RETRYING", "DUE",
                "CLAIMED", "PUSHED");
        JsonNode feed = api.get("/blackboard/results?limit=100").body().get("results");
        assertThat(feed.valueStream().filter(r -> id(r).equals(id)).count())
                .as("the feed carries the final outcome only").isEqualTo(1);
    }

    @Test
    void withoutAPolicyAReportedFailureIsFinal() {
        workerServingEcho(Map.of());
        UUID id = createJob(echo, Map.of("maxAttempts", 3));
        claim(worker, 1);

        Api.Response failed = fail(id, 1, Map.of("code", "E_TIMEOUT"));

        assertThat(failed.at("/status").asString()).isEqualTo("PUSHED");
        assertThat(failed.at("/failureReason").asString()).isEqualTo("WORKER_REPORTED");
        assertThat(job(id).get("retryPolicy").isNull()).isTrue();
        assertThat(job(id).get("errors").size()).isEqualTo(1);
    }

    @Test
    void theBackoffIsCappedByMaxInterval() {
        workerServingEcho(Map.of());
        UUID id = createJob(echo, Map.of("retryPolicy", Map.of("maxAttempts", 5, "initialIntervalMs", 4_000,
                "multiplier", 10.0, "maxIntervalMs", 30_000)));
        claim(worker, 1);
        fail(id, 1, Map.of());
        makeDue(id);
        claim(worker, 1);
        OffsetDateTime failedAt = databaseNow();

        Api.Response second = fail(id, 2, Map.of());

        assertThat(secondsAfter(failedAt, second.at("/runAt"))).as("40 s capped at 30 s").isCloseTo(30, within(2.0));
    }

    @Test
    void jitterTakesUpToItsShareOffTheBackoff() {
        workerServingEcho(Map.of());
        for (int i = 0; i < 10; i++) {
            UUID id = createJob(echo, Map.of("retryPolicy", Map.of("initialIntervalMs", 100_000, "jitter", 0.5)));
            assertThat(claim(worker, 1)).containsExactly(id);
            OffsetDateTime failedAt = databaseNow();
            double waited = secondsAfter(failedAt, fail(id, 1, Map.of()).at("/runAt"));
            assertThat(waited).isBetween(49.0, 101.0);
        }
    }

    @Test
    void anErrorThePolicyNeverRetriesIsFinalAtOnce() {
        workerServingEcho(Map.of());
        Map<String, Object> policy = Map.of("maxAttempts", 5, "nonRetryableErrors", List.of("AUTH_*", "BAD_INPUT"));

        assertThat(failOnce(policy, Map.of("code", "AUTH_DENIED")).at("/status").asString())
                .as("a prefix ending in *").isEqualTo("PUSHED");
        assertThat(failOnce(policy, Map.of("code", "BAD_INPUT")).at("/status").asString())
                .as("an exact code").isEqualTo("PUSHED");
        assertThat(failOnce(policy, Map.of("code", "OTHER", "retryable", false)).at("/status").asString())
                .as("retryable: false").isEqualTo("PUSHED");
        assertThat(failOnce(policy, Map.of("code", "BAD_INPUT_2")).at("/scheduled").asBoolean())
                .as("no * : exact only").isTrue();
        assertThat(failOnce(policy, Map.of("code", "AUTH")).at("/scheduled").asBoolean())
                .as("AUTH_* needs the underscore").isTrue();
    }

    @Test
    void aRetriedPushAnsweredAgainIsTheSameAndAnOlderAttemptIsRefused() {
        workerServingEcho(Map.of());
        UUID id = createJob(echo, Map.of("retryPolicy", POLICY));
        claim(worker, 1);
        Map<String, Object> error = Map.of("code", "E1");
        fail(id, 1, error);

        Api.Response again = fail(id, 1, error);
        assertThat(again.status()).as("the same push again, after a lost answer").isEqualTo(200);
        assertThat(again.at("/scheduled").asBoolean()).isTrue();
        assertThat(job(id).get("errors").size()).as("recorded once").isEqualTo(1);
        assertProblem(fail(id, 1, Map.of("code", "E2")), 409, "already");

        makeDue(id);
        claim(worker, 1);
        assertProblem(push(id, worker, Map.of("attempt", 1)), 409, "already");
        assertThat(fail(id, 1, error).status()).as("still the same push of attempt 1").isEqualTo(200);
        assertThat(job(id).get("status").asString()).isEqualTo("POLLED");
        assertThat(push(id, worker, Map.of("attempt", 2)).status()).isEqualTo(200);
    }

    @Test
    void theFunctionBlocksPolicyIsTheDefaultOfItsJobs() {
        worker = registerWorker(Map.of("name", "worker", "concurrency", 2));
        Map<String, Object> flaky = new HashMap<>(block("flaky", "1.0.0"));
        flaky.put("retryPolicy", Map.of("maxAttempts", 2, "initialIntervalMs", 5_000));
        UUID block = registerBlocks(worker, List.of(flaky)).getFirst();
        assertThat(api.get("/function-blocks/" + block).at("/retryPolicy/maxAttempts").asInt()).isEqualTo(2);

        UUID inherits = createJob(block, Map.of());
        JsonNode job = job(inherits);
        assertThat(job.get("maxAttempts").asInt()).isEqualTo(2);
        assertThat(job.at("/retryPolicy/initialIntervalMs").asLong()).isEqualTo(5_000);
        assertThat(job.at("/retryPolicy/multiplier").asDouble()).as("defaults filled in").isEqualTo(2.0);
        UUID once = createJob(block, Map.of("maxAttempts", 1));
        assertThat(job(once).at("/retryPolicy/maxAttempts").asInt()).as("the job's own maxAttempts").isEqualTo(1);

        assertThat(claim(worker, 2)).containsExactlyInAnyOrder(inherits, once);
        assertThat(fail(inherits, 1, Map.of()).at("/scheduled").asBoolean()).isTrue();
        assertThat(fail(once, 1, Map.of()).at("/status").asString()).isEqualTo("PUSHED");

        flaky.put("retryPolicy", Map.of("maxAttempts", 3));
        Api.Response changed = api.post("/function-blocks/register",
                Map.of("workerId", worker, "functionBlocks", List.of(flaky)));
        assertThat(changed.status()).as("a block's contract never changes").isEqualTo(409);
    }

    @Test
    void aBadPolicyIsRefusedAndNothingIsCreated() {
        workerServingEcho(Map.of());
        assertProblem(create(Map.of("multiplier", 0.5)), 400, "multiplier");
        assertProblem(create(Map.of("maxAttempts", 0)), 400, "maxAttempts");
        assertProblem(create(Map.of("initialIntervalMs", 10_000, "maxIntervalMs", 1_000)), 400, "maxIntervalMs");
        assertProblem(create(Map.of("jitter", 1.5)), 400, "jitter");
        assertProblem(create(Map.of("nonRetryableErrors", List.of(""))), 400, "nonRetryableErrors");
        assertProblem(api.post("/blackboard/jobs", Map.of("functionBlockId", echo, "type", "EXECUTE",
                "maxAttempts", 2, "retryPolicy", Map.of("maxAttempts", 3))), 400, "give it once");
        assertThat(jdbc.sql("select count(*) from job").query(Long.class).single()).isZero();
    }

    @Test
    void aRetriedFailureIsNotClaimedAgainByTheSameRoundTrip() throws InterruptedException {
        workerServingEcho(Map.of());
        UUID id = createJob(echo, Map.of("retryPolicy", Map.of("initialIntervalMs", 0)));
        claim(worker, 1);

        Api.Response next = api.post("/blackboard/job/next", Map.of("workerId", worker, "limit", 1,
                "results", List.of(Map.of("jobId", id, "workerId", worker, "attempt", 1, "status", "FAILURE"))));

        assertThat(next.status()).as(next.toString()).isEqualTo(200);
        assertThat(next.at("/results/0/job/scheduled").asBoolean()).isTrue();
        assertThat(next.at("/jobs").size()).as("it is not claimable until it falls due").isZero();
        awaitDue(id);
        assertThat(claim(worker, 1)).as("a zero backoff falls due at once").containsExactly(id);
    }

    /** A cancel racing the push that schedules a retry: whichever commits first, the job ends cancelled. */
    @Test
    void aRetryRacingACancelEndsCancelledEitherWay() throws Exception {
        workerServingEcho(Map.of());
        for (int round = 0; round < 20; round++) {
            UUID id = createJob(echo, Map.of("retryPolicy", Map.of("initialIntervalMs", 0)));
            assertThat(claim(worker, 1)).containsExactly(id);

            Future<Api.Response> failure = pool.submit(() -> fail(id, 1, Map.of()));
            Future<Api.Response> cancel = pool.submit(() -> api.post("/blackboard/jobs/" + id + "/cancel", null));

            assertThat(cancel.get().status()).isEqualTo(200);
            assertThat(failure.get().status()).isIn(200, 409);
            due.makeDue();
            JsonNode job = job(id);
            assertThat(job.get("outcome").asString()).isEqualTo("CANCELLED");
            assertThat(claim(worker, 1)).as("a cancelled job is never claimed again").isEmpty();
        }
    }

    @Test
    void aRetriedFailureKeepsWhatItAcquiredForTheEnginesRollback() {
        workerServingEcho(Map.of());
        UUID id = createJob(echo, Map.of("retryPolicy", POLICY));
        claim(worker, 1);

        Api.Response retried = push(id, worker, Map.of("attempt", 1, "status", "FAILURE", "error", Map.of("code", "E"),
                "acquires", Map.of("locks", List.of("r1")), "dbUpdates", Map.of("vlan", 10)));

        assertThat(retried.at("/scheduled").asBoolean()).isTrue();
        JsonNode entry = job(id).get("errors").get(0);
        assertThat(entry.at("/acquires/locks/0").asString()).isEqualTo("r1");
        assertThat(entry.at("/dbUpdates/vlan").asInt()).isEqualTo(10);
        assertThat(job(id).at("/acquires/locks/0").asString()).as("the latest attempt's, on the job").isEqualTo("r1");
    }

    @Test
    void aKeyedCreateRepeatedAfterARetryIsTheSameJob() {
        workerServingEcho(Map.of());
        Map<String, Object> create = Map.of("functionBlockId", echo, "type", "EXECUTE", "idempotencyKey", "wf/1",
                "retryPolicy", POLICY, "runAt", OffsetDateTime.now().minusSeconds(1).toString());
        UUID id = UUID.fromString(api.post("/blackboard/jobs", create).at("/id").asString());
        claim(worker, 1);
        fail(id, 1, Map.of());

        Api.Response again = api.post("/blackboard/jobs", create);

        assertThat(again.status()).as(again.toString()).isEqualTo(200);
        assertThat(again.at("/id").asString()).isEqualTo(id.toString());
    }

    @Test
    void aBackoffPastWhatAFloatHoldsIsTheMaxInterval() {
        workerServingEcho(Map.of());
        UUID id = createJob(echo, Map.of("retryPolicy", Map.of("maxAttempts", 100, "multiplier", 10.0,
                "initialIntervalMs", 1000, "maxIntervalMs", 60_000)));
        // as if re-run as a dead letter many times: attempt 500 of 1,000
        jdbc.sql("update job set attempt = 499, max_attempts = 1000 where id = :id").param("id", id).update();
        claim(worker, 1);
        OffsetDateTime failedAt = databaseNow();

        Api.Response retried = fail(id, 500, Map.of());

        assertThat(retried.status()).as(retried.toString()).isEqualTo(200);
        assertThat(secondsAfter(failedAt, retried.at("/runAt"))).isCloseTo(60, within(2.0));
    }

    @Test
    void theErrorHistoryKeepsTheLastHundredFailures() {
        workerServingEcho(Map.of());
        UUID id = createJob(echo, Map.of("retryPolicy", POLICY));
        // a dead letter re-run many times: 100 failures on record already
        jdbc.sql("""
                update job set errors = (select jsonb_agg(jsonb_build_object('attempt', n, 'error', null))
                                           from generate_series(1, 100) n)
                 where id = :id
                """).param("id", id).update();
        claim(worker, 1);

        fail(id, 1, Map.of("code", "LATEST"));

        JsonNode errors = job(id).get("errors");
        assertThat(errors.size()).isEqualTo(100);
        assertThat(errors.get(0).get("attempt").asInt()).as("the oldest dropped").isEqualTo(2);
        assertThat(errors.get(99).at("/error/code").asString()).isEqualTo("LATEST");
    }

    private Api.Response create(Map<String, Object> policy) {
        return api.post("/blackboard/jobs", Map.of("functionBlockId", echo, "type", "EXECUTE", "retryPolicy", policy));
    }

    private Api.Response failOnce(Map<String, Object> policy, Map<String, Object> error) {
        UUID id = createJob(echo, Map.of("retryPolicy", policy));
        assertThat(claim(worker, 1)).containsExactly(id);
        return fail(id, 1, error);
    }

    private Api.Response fail(UUID id, int attempt, Map<String, Object> error) {
        return push(id, worker, Map.of("attempt", attempt, "status", "FAILURE", "error", error));
    }

    private OffsetDateTime databaseNow() {
        return jdbc.sql("select now()").query(OffsetDateTime.class).single();
    }

    private static double secondsAfter(OffsetDateTime from, JsonNode time) {
        return Duration.between(from, OffsetDateTime.parse(time.asString())).toMillis() / 1000.0;
    }

    /**
     * Brings the job's retry forward and makes it due. DueJobs also runs on its own (it was told of
     * the retry), and a sweep beside this one may hold the row (this one skips it, SKIP LOCKED)
     * until it commits: so the sweep is repeated, briefly, until the job is due.
     */
    private void makeDue(UUID id) {
        jdbc.sql("update job set run_at = now() - interval '1 second' where id = :id").param("id", id).update();
        due.makeDue();
        for (int i = 0; i < 100 && job(id).get("scheduled").asBoolean(); i++) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            due.makeDue();
        }
        assertThat(job(id).get("scheduled").asBoolean()).isFalse();
    }

    /** The job's DUE event, written by DueJobs on its own (it was told of the retry). */
    private void awaitDue(UUID id) throws InterruptedException {
        for (int i = 0; i < 100 && !events(id).contains("DUE"); i++) {
            Thread.sleep(50);
        }
        assertThat(events(id)).contains("DUE");
    }

    private List<String> events(UUID jobId) {
        return api.get("/blackboard/jobs/" + jobId + "/events").body().valueStream()
                .map(event -> event.get("kind").asString()).toList();
    }
}
