package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/** An execution timeout per job or function block (issue 24): a claim runs this long at most, leases or not. */
class ExecutionTimeoutTest extends BlackboardTest {

    @Autowired
    StuckJobSweeper sweeper;

    private final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    @Test
    void theClaimsDeadlineIsNoLaterThanTheExecutionTimeout() {
        workerServingEcho(Map.of());
        UUID id = createJob(echo, Map.of("executionTimeoutMs", 60_000));
        claim(worker, 1);

        JsonNode job = job(id);
        assertThat(job.get("executionTimeoutMs").asLong()).isEqualTo(60_000);
        assertThat(Duration.between(OffsetDateTime.parse(job.get("polledAt").asString()),
                OffsetDateTime.parse(job.get("deadline").asString()))).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void aJobRunningPastItFailsWithItsOwnReasonThoughItsWorkerKeepsExtendingTheLease() {
        workerServingEcho(Map.of());
        UUID id = createJob(echo, Map.of("executionTimeoutMs", 3_600_000));
        UUID plain = createJob(echo, Map.of());
        claim(worker, 1);
        // it has run for two hours, its lease extended by every ping so far
        jdbc.sql("update job set polled_at = polled_at - interval '2 hours', deadline = now() + interval '5 minutes'"
                + " where id = :id").param("id", id).update();
        assertThat(sweeper.runOnce()).as("its lease has not run out").isEqualTo(new StuckJobSweeper.Result(0, 0));

        Api.Response ping = api.post("/workers/" + worker + "/ping", Map.of("activeJobIds", List.of(id)));
        assertThat(ping.status()).isEqualTo(200);
        assertThat(OffsetDateTime.parse(job(id).get("deadline").asString()))
                .as("a ping extends the lease no further than the execution timeout")
                .isEqualTo(OffsetDateTime.parse(job(id).get("polledAt").asString()).plusHours(1));

        assertThat(sweeper.runOnce()).isEqualTo(new StuckJobSweeper.Result(1, 0));
        JsonNode job = job(id);
        assertThat(job.get("status").asString()).isEqualTo("PUSHED");
        assertThat(job.get("outcome").asString()).isEqualTo("FAILURE");
        assertThat(job.get("failureReason").asString()).isEqualTo("EXECUTION_TIMEOUT");
        assertThat(job.get("error").asString()).contains("execution timeout");
        assertProblem(push(id, worker, Map.of()), 409, "EXECUTION_TIMEOUT");
        assertThat(status(plain)).isEqualTo("PENDING");
    }

    @Test
    void aStuckJobWithAnExecutionTimeoutStillFailsAsStuck() {
        workerServingEcho(Map.of());
        UUID id = createJob(echo, Map.of("executionTimeoutMs", 3_600_000));
        claim(worker, 1);
        expire(id);

        assertThat(sweeper.runOnce()).isEqualTo(new StuckJobSweeper.Result(1, 0));
        assertThat(job(id).get("failureReason").asString()).isEqualTo("STUCK_TIMEOUT");
    }

    @Test
    void aSafeBlocksJobIsRequeuedUnderTheSameRuleAsOtherServerSideFailures() throws InterruptedException {
        worker = registerWorker("worker");
        Map<String, Object> pure = new HashMap<>(block("pure", "1.0.0"));
        pure.put("pure", true);
        pure.put("executionTimeoutMs", 1);
        UUID block = registerBlocks(worker, List.of(pure)).getFirst();
        UUID id = createJob(block, Map.of("maxAttempts", 2));
        assertThat(job(id).get("executionTimeoutMs").asLong()).as("the block's default").isEqualTo(1);
        claim(worker, 1);
        awaitDeadline(id);

        assertThat(sweeper.runOnce()).isEqualTo(new StuckJobSweeper.Result(0, 1));
        assertThat(status(id)).isEqualTo("PENDING");
        JsonNode requeued = api.get("/blackboard/jobs/" + id + "/events").body().get(2);
        assertThat(requeued.get("kind").asString()).isEqualTo("REQUEUED");
        assertThat(requeued.get("detail").asString()).isEqualTo("EXECUTION_TIMEOUT");
        UUID own = createJob(block, Map.of("executionTimeoutMs", 90_000));
        assertThat(job(own).get("executionTimeoutMs").asLong()).as("the job's own wins").isEqualTo(90_000);
    }

    @Test
    void aBadTimeoutIsRefused() {
        workerServingEcho(Map.of());
        assertProblem(api.post("/blackboard/jobs", Map.of("functionBlockId", echo, "type", "EXECUTE",
                "executionTimeoutMs", 0)), 400, "executionTimeoutMs");
        assertProblem(api.post("/function-blocks/register", Map.of("workerId", worker, "functionBlocks",
                List.of(Map.of("name", "b", "version", "1", "executionTimeoutMs", -5)))), 400, "executionTimeoutMs");
        assertThat(jdbc.sql("select count(*) from job").query(Long.class).single()).isZero();
    }

    /** The sweeper racing the worker's push on a job whose time ran out: one of them wins, never both. */
    @Test
    void aTimeoutRacingAPushHasOneWinner() throws Exception {
        workerServingEcho(Map.of());
        for (int round = 0; round < 20; round++) {
            UUID id = createJob(echo, Map.of("executionTimeoutMs", 1));
            assertThat(claim(worker, 1)).containsExactly(id);
            awaitDeadline(id);

            Future<Api.Response> push = pool.submit(() -> push(id, worker, Map.of("attempt", 1)));
            Future<StuckJobSweeper.Result> sweep = pool.submit(sweeper::runOnce);

            int pushed = push.get().status();
            StuckJobSweeper.Result result = sweep.get();
            JsonNode job = job(id);
            if (pushed == 200) {
                assertThat(job.get("outcome").asString()).isEqualTo("SUCCESS");
                assertThat(result.failed()).isZero();
            } else {
                assertThat(pushed).isEqualTo(409);
                assertThat(job.get("failureReason").asString()).isEqualTo("EXECUTION_TIMEOUT");
            }
            assertThat(jdbc.sql("select count(*) from job_event where job_id = :id and kind in ('PUSHED', 'FAILED')")
                    .param("id", id).query(Long.class).single()).as("one end").isEqualTo(1);
        }
    }

    /** Waits (a few ms at most) until the database's clock passes the job's deadline. */
    private void awaitDeadline(UUID id) throws InterruptedException {
        while (jdbc.sql("select deadline >= now() from job where id = :id").param("id", id)
                .query(Boolean.class).single()) {
            Thread.sleep(2);
        }
    }
}
