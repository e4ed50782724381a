package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** {@code POST /blackboard/job/next}: a busy worker pushes what it finished and claims what is next, in one request. */
class NextTest extends BlackboardTest {

    @Test
    void aPushAndTheNextClaimAreOneRoundTripAndThePushFreesTheSlotItClaims() {
        workerServingEcho(Map.of("concurrency", 1));
        List<UUID> jobs = createJobs(echo, 3);
        assertThat(claim(worker, 1)).containsExactly(jobs.get(0));

        Api.Response response = next(List.of(result(jobs.get(0), 1)), 1);

        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        assertThat(response.at("/results/0/status").asInt()).isEqualTo(200);
        assertThat(response.at("/results/0/job/outcome").asString()).isEqualTo("SUCCESS");
        assertThat(ids(response.at("/jobs"))).as("the freed slot, claimed at once").containsExactly(jobs.get(1));
        assertThat(response.at("/jobs/0/attempt").asInt()).isEqualTo(1);
        assertThat(job(jobs.get(0)).at("/result/n").asInt()).isEqualTo(1);
        assertThat(status(jobs.get(1))).isEqualTo("POLLED");
        assertThat(status(jobs.get(2))).isEqualTo("PENDING");
        assertThat(kinds(jobs.get(0))).containsExactly("CREATED", "CLAIMED", "PUSHED");
        assertThat(kinds(jobs.get(1))).containsExactly("CREATED", "CLAIMED");

        Api.Response last = next(List.of(result(jobs.get(1), 1)), 1);
        assertThat(ids(last.at("/jobs"))).containsExactly(jobs.get(2));
        Api.Response drained = next(List.of(result(jobs.get(2), 1)), 1);
        assertThat(drained.at("/results/0/status").asInt()).isEqualTo(200);
        assertThat(drained.at("/jobs").isEmpty()).as("nothing left: it does not wait").isTrue();
        assertThat(ids(next(List.of(), 1).at("/jobs"))).as("no results: a poll that does not wait").isEmpty();
    }

    @Test
    void eachPushIsAnsweredOnItsOwnAndTheClaimGoesOn() {
        workerServingEcho(Map.of("concurrency", 5));
        UUID other = worker("other", Map.of(), List.of(block("echo", "1.0.0")));
        List<UUID> jobs = createJobs(echo, 3);
        List<UUID> mine = claim(worker, 2);
        UUID others = claim(other, 1).getFirst();
        push(mine.get(0), worker, Map.of("result", Map.of("n", 1)));
        String othersRow = row(others);
        UUID fresh = createJob(echo, Map.of());

        Api.Response response = next(List.of(result(mine.get(0), 1), result(others, 1), result(mine.get(1), 7),
                result(UUID.randomUUID(), 1)), 3);

        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        assertThat(response.body().get("results").valueStream().map(i -> i.get("status").asInt()).toList())
                .as("a repeat, another's job, a wrong attempt, an unknown job").containsExactly(200, 409, 409, 404);
        assertThat(row(others)).isEqualTo(othersRow);
        assertThat(status(mine.get(1))).isEqualTo("POLLED");
        assertThat(ids(response.at("/jobs"))).containsExactly(fresh);
        assertThat(jobs).contains(mine.get(0), mine.get(1), others);
    }

    @Test
    void aRequestRefusedAsAWholePushesNothingAndClaimsNothing() {
        workerServingEcho(Map.of("concurrency", 2));
        UUID job = claimedJob(echo);
        createJob(echo, Map.of());
        String before = row(job);
        UUID notServed = registerBlocks(registerWorker("elsewhere"), List.of(block("backup", "1.0.0"))).getFirst();

        assertProblem(api.post("/blackboard/job/next", Map.of("workerId", worker, "results",
                List.of(result(job, 1)), "functionBlockIds", List.of(notServed))), 422, notServed.toString());
        assertThat(row(job)).as("the push rolled back with the refused claim").isEqualTo(before);

        UUID other = registerWorker("other");
        assertProblem(next(List.of(Map.of("jobId", job, "workerId", other, "attempt", 1, "status", "SUCCESS")), 1),
                400, "results[0].workerId");
        assertProblem(next(List.of(), 101), 400, "limit");
        assertProblem(next(List.of(Map.of("jobId", job, "workerId", worker)), 1), 400, "status");
        assertThat(row(job)).isEqualTo(before);

        api.delete("/workers/" + worker);
        assertProblem(next(List.of(result(job, 1)), 1), 404, worker.toString());
    }

    @Test
    void limitZeroOnlyPushesAndAQuietWorkerGetsItsPushesLandedButNoJobs() {
        workerServingEcho(Map.of("concurrency", 2));
        List<UUID> jobs = createJobs(echo, 4);
        List<UUID> held = claim(worker, 2);

        Api.Response pushOnly = next(List.of(result(held.get(0), 1)), 0);
        assertThat(pushOnly.at("/results/0/status").asInt()).isEqualTo(200);
        assertThat(pushOnly.at("/jobs").isEmpty()).isTrue();

        api.put("/workers/" + worker + "/directive", Map.of("directive", "QUIET"));
        Api.Response quiet = next(List.of(result(held.get(1), 1)), 2);
        assertThat(quiet.at("/results/0/status").asInt()).isEqualTo(200);
        assertThat(quiet.at("/jobs").isEmpty()).as("QUIET: no claim").isTrue();
        assertThat(jobs.stream().filter(id -> status(id).equals("PENDING")).count()).isEqualTo(2);
    }

    @Test
    void concurrentRequestsOfOneWorkerProcessEveryJobOnceWithinItsConcurrency() throws Exception {
        workerServingEcho(Map.of("concurrency", 2));
        List<UUID> jobs = createJobs(echo, 40);
        ConcurrentLinkedQueue<UUID> pushed = new ConcurrentLinkedQueue<>();
        AtomicInteger mostHeld = new AtomicInteger();
        AtomicBoolean running = new AtomicBoolean(true);
        CountDownLatch start = new CountDownLatch(1);
        try (var pool = Executors.newFixedThreadPool(5)) {
            pool.submit(() -> { // the worker's held jobs, sampled from the table throughout
                while (running.get()) {
                    mostHeld.accumulateAndGet(jdbc.sql("select count(*) from job where worker_id = :w and status = 'POLLED'")
                            .param("w", worker).query(Integer.class).single(), Math::max);
                }
                return null;
            });
            List<Future<?>> loops = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                loops.add(pool.submit(() -> {
                    start.await();
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    List<Map<String, Object>> results = List.of();
                    while (!(results.isEmpty() && pushed.size() == jobs.size()) && System.nanoTime() < until) {
                        Api.Response response = next(results, 2);
                        assertThat(response.status()).as(response.toString()).isEqualTo(200);
                        response.body().get("results").valueStream()
                                .forEach(r -> assertThat(r.get("status").asInt()).isEqualTo(200));
                        results = new ArrayList<>();
                        for (JsonNode job : response.body().get("jobs")) {
                            pushed.add(id(job));
                            results.add(result(id(job), job.get("attempt").asInt()));
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            try {
                for (Future<?> loop : loops) {
                    loop.get();
                }
            } finally {
                running.set(false);
            }
        }

        assertThat(pushed).as("every job claimed once").hasSize(40).doesNotHaveDuplicates();
        assertThat(jdbc.sql("select count(*) from job where function_block_id = :fb and status = 'PUSHED'")
                .param("fb", echo).query(Integer.class).single()).isEqualTo(40);
        assertThat(jdbc.sql("select count(*) from job_event where kind = 'PUSHED'").query(Integer.class).single())
                .as("one PUSHED event per job").isEqualTo(40);
        assertThat(mostHeld.get()).as("never past the worker's concurrency").isBetween(1, 2);
    }

    private Api.Response next(List<Map<String, Object>> results, int limit) {
        return api.post("/blackboard/job/next", Map.of("workerId", worker, "results", results, "limit", limit));
    }

    private Map<String, Object> result(UUID jobId, int attempt) {
        Map<String, Object> push = new HashMap<>(Map.of("jobId", jobId, "workerId", worker, "attempt", attempt,
                "status", "SUCCESS"));
        push.put("result", Map.of("n", 1));
        return push;
    }

    private static List<UUID> ids(JsonNode jobs) {
        return jobs.valueStream().map(BlackboardTest::id).toList();
    }

    private List<String> kinds(UUID jobId) {
        return api.get("/blackboard/jobs/" + jobId + "/events").body().valueStream()
                .map(e -> e.get("kind").asString()).toList();
    }
}
