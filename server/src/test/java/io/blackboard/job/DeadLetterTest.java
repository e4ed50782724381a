package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Dead letters (issue 24): parked by policy instead of failing, listed, re-run or discarded. */
class DeadLetterTest extends BlackboardTest {

    private static final Map<String, Object> PARK_AFTER_TWO = Map.of("maxAttempts", 2, "initialIntervalMs", 0,
            "onExhausted", "PARK");

    private final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    @Test
    void aJobWhoseAttemptsRunOutParksAndStaysOutOfTheFeed() {
        workerServingEcho(Map.of());
        UUID id = parkedJob(Map.of());

        JsonNode job = job(id);
        assertThat(job.get("status").asString()).isEqualTo("PARKED");
        assertThat(job.get("outcome").isNull()).as("not ended").isTrue();
        assertThat(job.get("errors").size()).isEqualTo(2);
        assertThat(events(id)).endsWith("RETRYING", "DUE", "CLAIMED", "PARKED");
        assertThat(api.get("/blackboard/results?limit=100").body().get("results").size()).isZero();
        assertThat(claim(worker, 1)).as("a dead letter is not claimed").isEmpty();
        assertThat(api.get("/function-blocks").body().get(0).get("parked").asLong()).isEqualTo(1);
        assertThat(fail(id, 2, Map.of("code", "E2")).status()).as("the same push again").isEqualTo(200);
    }

    @Test
    void aNonRetryableErrorParksAtOnceAndWithoutParkAFinalFailureFails() {
        workerServingEcho(Map.of());
        UUID parked = createJob(echo, Map.of("retryPolicy", Map.of("maxAttempts", 5, "onExhausted", "PARK",
                "nonRetryableErrors", List.of("AUTH"))));
        claim(worker, 1);
        assertThat(fail(parked, 1, Map.of("code", "AUTH")).at("/status").asString()).isEqualTo("PARKED");

        UUID failed = createJob(echo, Map.of("retryPolicy", Map.of("maxAttempts", 1)));
        claim(worker, 1);
        assertThat(fail(failed, 1, Map.of()).at("/status").asString()).isEqualTo("PUSHED");
        assertProblem(api.post("/blackboard/jobs", Map.of("functionBlockId", echo, "type", "EXECUTE",
                "retryPolicy", Map.of("onExhausted", "KEEP"))), 400, "onExhausted");
    }

    @Test
    void operatorsListDeadLettersPageByPageWithTheirErrors() {
        workerServingEcho(Map.of());
        List<UUID> parked = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            parked.add(parkedJob(Map.of("correlationId", "wf-" + (i % 2))));
        }

        Api.Response first = api.get("/blackboard/dead-letters?limit=2");
        assertThat(first.at("/jobs").valueStream().map(BlackboardTest::id).toList())
                .containsExactly(parked.get(0), parked.get(1));
        assertThat(first.at("/jobs/0/errors/1/error/code").asString()).isEqualTo("E2");
        Api.Response second = api.get("/blackboard/dead-letters?limit=2&after=" + first.at("/next").asString());
        assertThat(second.at("/jobs").valueStream().map(BlackboardTest::id).toList()).containsExactly(parked.get(2));
        assertThat(second.at("/next").isNull()).isTrue();
        assertThat(api.get("/blackboard/dead-letters?correlationId=wf-1").at("/jobs").valueStream()
                .map(BlackboardTest::id).toList()).containsExactly(parked.get(1));
        assertProblem(api.get("/blackboard/dead-letters?after=nonsense"), 400, "cursor");
    }

    @Test
    void aRerunIsANewAttemptWithTheHistoryKept() {
        workerServingEcho(Map.of());
        UUID id = parkedJob(Map.of());

        Api.Response rerun = api.post("/blackboard/dead-letters/" + id + "/rerun", null);

        assertThat(rerun.status()).as(rerun.toString()).isEqualTo(200);
        assertThat(rerun.at("/status").asString()).isEqualTo("PENDING");
        assertThat(rerun.at("/maxAttempts").asInt()).as("two spent, two more").isEqualTo(4);
        assertThat(claim(worker, 1)).containsExactly(id);
        assertThat(job(id).get("attempt").asInt()).isEqualTo(3);
        assertThat(push(id, worker, Map.of("attempt", 3)).status()).isEqualTo(200);
        JsonNode done = job(id);
        assertThat(done.get("outcome").asString()).isEqualTo("SUCCESS");
        assertThat(done.get("errors").size()).as("the history kept").isEqualTo(2);
        assertThat(events(id)).containsSubsequence("PARKED", "RERUN", "CLAIMED", "PUSHED");
        assertProblem(api.post("/blackboard/dead-letters/" + id + "/rerun", null), 409, "not a dead letter");
        assertProblem(api.post("/blackboard/dead-letters/" + UUID.randomUUID() + "/rerun", null), 404, "");
    }

    @Test
    void aDiscardEndsTheJobAsItsFailureAndOnlyThenReachesTheFeed() {
        workerServingEcho(Map.of());
        UUID id = parkedJob(Map.of());

        Api.Response discarded = api.post("/blackboard/dead-letters/" + id + "/discard", null);

        assertThat(discarded.status()).isEqualTo(200);
        assertThat(discarded.at("/outcome").asString()).isEqualTo("FAILURE");
        assertThat(discarded.at("/failureReason").asString()).isEqualTo("WORKER_REPORTED");
        assertThat(discarded.at("/error/code").asString()).isEqualTo("E2");
        JsonNode feed = api.get("/blackboard/results?limit=100").body().get("results");
        assertThat(feed.valueStream().map(BlackboardTest::id).toList()).containsExactly(id);
        assertProblem(api.post("/blackboard/dead-letters/" + id + "/discard", null), 409, "PUSHED");
        assertThat(fail(id, 2, Map.of("code", "E2")).status()).as("the worker's push again, after a lost answer")
                .isEqualTo(200);
        assertProblem(api.post("/blackboard/dead-letters/" + id + "/rerun", null), 409, "not a dead letter");
    }

    @Test
    void manyDeadLettersRunAgainInOneCall() {
        workerServingEcho(Map.of());
        UUID a = parkedJob(Map.of("correlationId", "run-1"));
        UUID b = parkedJob(Map.of("correlationId", "run-1"));
        UUID c = parkedJob(Map.of("correlationId", "run-2"));

        assertThat(api.post("/blackboard/dead-letters/rerun", Map.of("correlationId", "run-1")).at("/rerun").asInt())
                .isEqualTo(2);
        assertThat(status(a)).isEqualTo("PENDING");
        assertThat(status(b)).isEqualTo("PENDING");
        assertThat(status(c)).isEqualTo("PARKED");
        assertThat(api.post("/blackboard/dead-letters/rerun", Map.of("jobIds", List.of(c, a))).at("/rerun").asInt())
                .as("only what is parked").isEqualTo(1);
        assertProblem(api.post("/blackboard/dead-letters/rerun", Map.of()), 400, "which dead letters");
    }

    @Test
    void theEngineCanCancelADeadLetter() {
        workerServingEcho(Map.of());
        UUID id = parkedJob(Map.of("correlationId", "wf-9"));

        assertThat(api.post("/blackboard/jobs/cancel", Map.of("correlationId", "wf-9")).at("/cancelled").asInt())
                .isEqualTo(1);
        assertThat(job(id).get("outcome").asString()).isEqualTo("CANCELLED");
    }

    /** An operator re-running a dead letter while another discards it: one of them wins, never both. */
    @Test
    void aRerunRacingADiscardHasOneWinner() throws Exception {
        workerServingEcho(Map.of());
        for (int round = 0; round < 15; round++) {
            UUID id = parkedJob(Map.of());
            Future<Api.Response> rerun = pool.submit(() -> api.post("/blackboard/dead-letters/" + id + "/rerun", null));
            Future<Api.Response> discard = pool.submit(
                    () -> api.post("/blackboard/dead-letters/" + id + "/discard", null));

            int reran = rerun.get().status();
            int discarded = discard.get().status();
            assertThat(List.of(reran, discarded)).containsExactlyInAnyOrder(200, 409);
            assertThat(status(id)).isEqualTo(reran == 200 ? "PENDING" : "PUSHED");
            if (reran == 200) {
                assertThat(api.post("/blackboard/jobs/" + id + "/cancel", null).status()).isEqualTo(200);
            }
        }
    }

    /** A job of {@link #echo} whose two attempts failed ("E1", then "E2") under a PARK policy. */
    private UUID parkedJob(Map<String, Object> fields) {
        Map<String, Object> create = new java.util.HashMap<>(fields);
        create.put("retryPolicy", PARK_AFTER_TWO);
        UUID id = createJob(echo, create);
        assertThat(claim(worker, 1)).containsExactly(id);
        assertThat(fail(id, 1, Map.of("code", "E1")).at("/scheduled").asBoolean()).isTrue();
        jdbc.sql("update job set run_at = now() - interval '1 second' where id = :id").param("id", id).update();
        awaitClaim(id);
        assertThat(fail(id, 2, Map.of("code", "E2")).at("/status").asString()).isEqualTo("PARKED");
        return id;
    }

    /** Claims the job once DueJobs (told of the retry) has made it PENDING. */
    private void awaitClaim(UUID id) {
        for (int i = 0; i < 200; i++) {
            if (claim(worker, 1).contains(id)) {
                return;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        throw new AssertionError("job " + id + " never fell due");
    }

    private Api.Response fail(UUID id, int attempt, Map<String, Object> error) {
        return push(id, worker, Map.of("attempt", attempt, "status", "FAILURE", "error", error));
    }

    private List<String> events(UUID jobId) {
        return api.get("/blackboard/jobs/" + jobId + "/events").body().valueStream()
                .map(event -> event.get("kind").asString()).toList();
    }
}
