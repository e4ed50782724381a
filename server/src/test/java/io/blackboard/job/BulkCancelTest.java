package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Cancelling every job of a workflow run, or of a filter, in one call (issue 24). */
class BulkCancelTest extends BlackboardTest {

    private final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();

    @org.springframework.beans.factory.annotation.Autowired
    javax.sql.DataSource dataSource;

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    @Test
    void everyJobOfACorrelationIdEndsCancelledAsASingleCancelWouldEndIt() {
        workerServingEcho(Map.of("concurrency", 2));
        UUID held1 = createJob(echo, Map.of("correlationId", "wf-1"));
        UUID held2 = createJob(echo, Map.of("correlationId", "wf-1"));
        assertThat(claim(worker, 2)).containsExactlyInAnyOrder(held1, held2);
        UUID pending = createJob(echo, Map.of("correlationId", "wf-1"));
        UUID scheduled = createJob(echo, Map.of("correlationId", "wf-1", "delayMs", 3_600_000));
        UUID other = createJob(echo, Map.of("correlationId", "wf-2"));
        assertThat(push(held2, worker, Map.of()).status()).isEqualTo(200);

        Api.Response response = api.post("/blackboard/jobs/cancel", Map.of("correlationId", "wf-1"));

        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        assertThat(response.at("/cancelled").asInt()).as("the pushed job has ended already").isEqualTo(3);
        for (UUID id : List.of(held1, pending, scheduled)) {
            JsonNode job = job(id);
            assertThat(job.get("status").asString()).isEqualTo("PUSHED");
            assertThat(job.get("outcome").asString()).isEqualTo("CANCELLED");
        }
        assertThat(job(held2).get("outcome").asString()).isEqualTo("SUCCESS");
        assertThat(status(other)).isEqualTo("PENDING");
        Api.Response ping = api.post("/workers/" + worker + "/ping", Map.of("activeJobIds", List.of(held1)));
        assertThat(ping.at("/cancelJobIds").valueStream().map(id -> UUID.fromString(id.asString())).toList())
                .as("the worker is told, as for a single cancel").containsExactly(held1);
        assertProblem(push(held1, worker, Map.of()), 409, "CANCELLED");
        JsonNode feed = api.get("/blackboard/results?limit=100").body().get("results");
        assertThat(feed.valueStream().filter(r -> "CANCELLED".equals(r.get("outcome").asString())).count())
                .isEqualTo(3);
        assertThat(api.post("/blackboard/jobs/cancel", Map.of("correlationId", "wf-1")).at("/cancelled").asInt())
                .as("again: nothing left to cancel").isZero();
    }

    @Test
    void filtersCombineAndOneIsRequired() {
        workerServingEcho(Map.of());
        UUID held = createJob(echo, Map.of("correlationId", "wf-1"));
        claim(worker, 1);
        UUID pending = createJob(echo, Map.of("correlationId", "wf-1"));

        assertThat(api.post("/blackboard/jobs/cancel", Map.of("correlationId", "wf-1", "status", "polled"))
                .at("/cancelled").asInt()).isEqualTo(1);
        assertThat(job(held).get("outcome").asString()).isEqualTo("CANCELLED");
        assertThat(status(pending)).isEqualTo("PENDING");
        assertProblem(api.post("/blackboard/jobs/cancel", Map.of()), 400, "at least one filter");
        assertProblem(api.post("/blackboard/jobs/cancel", Map.of("status", "pushed")), 400, "ended");
        assertProblem(api.post("/blackboard/jobs/cancel", Map.of("status", "done")), 400, "Unknown job status");
        assertThat(status(pending)).isEqualTo("PENDING");
    }

    @Test
    void moreThanOneBatchIsCancelledWhole() {
        workerServingEcho(Map.of());
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < 625; i++) {
            batch.add(Map.of("functionBlockId", echo, "type", "EXECUTE", "correlationId", "big"));
        }
        assertThat(api.post("/blackboard/jobs", batch).status()).isEqualTo(201);
        assertThat(api.post("/blackboard/jobs", batch).status()).as("a create takes 1,000 at most").isEqualTo(201);

        assertThat(api.post("/blackboard/jobs/cancel", Map.of("functionBlockId", echo)).at("/cancelled").asInt())
                .isEqualTo(JobService.CANCEL_BATCH + 250);
        assertThat(jdbc.sql("select count(*) from job_event where kind = 'CANCELLED'").query(Long.class).single())
                .isEqualTo(JobService.CANCEL_BATCH + 250);
    }

    /** A row held by another transaction (a claim or push in flight) is waited for, not left running. */
    @Test
    void aJobHeldElsewhereIsCancelledOnceItIsFree() throws Exception {
        workerServingEcho(Map.of());
        UUID held = createJob(echo, Map.of("correlationId", "wf-3"));
        UUID free = createJob(echo, Map.of("correlationId", "wf-3"));

        Future<Api.Response> cancel;
        try (io.blackboard.RowLock lock = io.blackboard.RowLock.hold(dataSource, "job", held)) {
            cancel = pool.submit(() -> api.post("/blackboard/jobs/cancel", Map.of("correlationId", "wf-3")));
            Thread.sleep(300);
            assertThat(cancel.isDone()).as("waits for the held row").isFalse();
            assertThat(job(free).get("outcome").asString()).as("the rest is cancelled meanwhile")
                    .isEqualTo("CANCELLED");
        }
        assertThat(cancel.get().at("/cancelled").asInt()).isEqualTo(2);
        assertThat(job(held).get("outcome").asString()).isEqualTo("CANCELLED");
    }

    /** Workers claiming and pushing while the engine aborts the run: every job ends once, pushed or cancelled. */
    @Test
    void aBulkCancelRacingClaimsAndPushesLeavesNothingRunning() throws Exception {
        List<UUID> workers = new ArrayList<>();
        UUID block = null;
        for (int w = 0; w < 4; w++) {
            UUID id = registerWorker(Map.of("name", "w" + w, "concurrency", 5));
            block = registerBlocks(id, List.of(block("echo", "1.0.0"))).getFirst();
            workers.add(id);
        }
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            batch.add(Map.of("functionBlockId", block, "type", "EXECUTE", "correlationId", "run-7"));
        }
        assertThat(api.post("/blackboard/jobs", batch).status()).isEqualTo(201);

        List<Future<Integer>> loops = new ArrayList<>();
        for (UUID w : workers) {
            loops.add(pool.submit(() -> work(w)));
        }
        Thread.sleep(100);
        int cancelled = api.post("/blackboard/jobs/cancel", Map.of("correlationId", "run-7")).at("/cancelled").asInt();
        int pushed = 0;
        for (Future<Integer> loop : loops) {
            pushed += loop.get();
        }

        assertThat(jdbc.sql("select count(*) from job where status <> 'PUSHED'").query(Long.class).single())
                .as("nothing left pending or running").isZero();
        assertThat(jdbc.sql("select count(*) from job where outcome = 'SUCCESS'").query(Long.class).single())
                .isEqualTo(pushed);
        assertThat(cancelled + pushed).isEqualTo(400);
        assertThat(jdbc.sql("""
                select count(*) from (select job_id from job_event where kind in ('PUSHED', 'CANCELLED')
                 group by job_id having count(*) <> 1) twice
                """).query(Long.class).single()).as("each job ended once").isZero();
    }

    /** Claims and pushes until a poll comes back empty; answers how many pushes landed. */
    private int work(UUID workerId) {
        int landed = 0;
        while (true) {
            Api.Response polled = poll(workerId, 5);
            if (polled.body().isEmpty()) {
                return landed;
            }
            for (JsonNode job : polled.body()) {
                Map<String, Object> body = new HashMap<>(Map.of("jobId", id(job), "workerId", workerId,
                        "attempt", job.get("attempt").asInt(), "status", "SUCCESS"));
                int status = api.post("/blackboard/job/result", body).status();
                assertThat(status).isIn(200, 409);
                if (status == 200) {
                    landed++;
                }
            }
        }
    }
}
