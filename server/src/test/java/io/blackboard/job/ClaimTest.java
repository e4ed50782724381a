package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

class ClaimTest extends BlackboardTest {

    @Test
    void aPollClaimsAPendingJobForThatWorkerAlone() {
        workerServingEcho(Map.of());
        UUID id = createJob(echo, Map.of());

        Api.Response response = poll(worker, 1);

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.body()).hasSize(1);
        var claimed = response.body().get(0);
        assertThat(id(claimed)).isEqualTo(id);
        assertThat(claimed.get("status").asString()).isEqualTo("POLLED");
        assertThat(claimed.get("attempt").asInt()).isEqualTo(1);
        assertThat(claimed.get("workerId").asString()).isEqualTo(worker.toString());
        assertThat(claimed.at("/payload/host").asString()).isEqualTo("r1");
        assertThat(claimed.get("deadline").asString()).isNotBlank();
        boolean deadlineFromDatabase = jdbc.sql("""
                select deadline between now() + interval '11 minutes' and now() + interval '13 minutes'
                  from job where id = :id""").param("id", id).query(Boolean.class).single();
        assertThat(deadlineFromDatabase).isTrue();
        assertThat(poll(worker, 1).body()).as("nothing left").isEmpty();
    }

    @Test
    void higherPriorityFirstThenFirstInFirstOut() {
        workerServingEcho(Map.of("concurrency", 10));
        UUID low1 = createJob(echo, Map.of("priority", 1));
        UUID high = createJob(echo, Map.of("priority", 9));
        UUID low2 = createJob(echo, Map.of("priority", 1));
        UUID normal = createJob(echo, Map.of());
        UUID low3 = createJob(echo, Map.of("priority", 1));

        List<UUID> order = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            order.addAll(claim(worker, 1));
        }

        assertThat(order).containsExactly(high, low1, low2, low3, normal);
    }

    @Test
    void aPollNeverReturnsMoreThanItsLimit() {
        workerServingEcho(Map.of("concurrency", 100));
        createJobs(echo, 10);

        assertThat(claim(worker, 3)).hasSize(3);
        assertThat(claim(worker, 100)).hasSize(7);
    }

    @Test
    void aWorkerNeverHoldsMoreThanItsConcurrency() {
        workerServingEcho(Map.of("concurrency", 2));
        createJobs(echo, 5);

        List<UUID> held = claim(worker, 5);
        assertThat(held).hasSize(2);
        assertThat(claim(worker, 5)).isEmpty();

        assertThat(push(held.getFirst(), worker, Map.of()).status()).isEqualTo(200);
        assertThat(claim(worker, 5)).hasSize(1);
        assertThat(api.get("/workers/" + worker).at("/heldJobs").asInt()).isEqualTo(2);
    }

    @Test
    void concurrentPollsOfOneWorkerTogetherStayWithinItsConcurrency() throws Exception {
        workerServingEcho(Map.of("concurrency", 3));
        createJobs(echo, 50);

        ConcurrentLinkedQueue<UUID> claimed = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        try (var pool = Executors.newFixedThreadPool(12)) {
            for (int i = 0; i < 12; i++) {
                pool.submit(() -> {
                    start.await();
                    claimed.addAll(claim(worker, 3));
                    return null;
                });
            }
            start.countDown();
        }

        assertThat(claimed).hasSize(3).doesNotHaveDuplicates();
    }

    @Test
    void aJobsSelectorMustBeASubsetOfTheWorkersLabels() {
        UUID siteB = worker("site-b", Map.of("labels", Map.of("site", "b")), List.of(block("echo", "1.0.0")));
        UUID siteA = worker("site-a", Map.of("labels", Map.of("site", "a", "vendor", "cisco")),
                List.of(block("echo", "1.0.0")));
        UUID echoId = registerBlocks(siteA, List.of(block("echo", "1.0.0"))).getFirst();
        UUID forA = createJob(echoId, Map.of("selector", Map.of("site", "a")));

        assertThat(claim(siteB, 1)).isEmpty();
        assertThat(claim(siteA, 1)).containsExactly(forA);
    }

    @Test
    void onlyOnlineWorkersWithTheRunDirectiveGetJobs() {
        workerServingEcho(Map.of());
        createJob(echo, Map.of());

        jdbc.sql("update worker set state = 'UNREACHABLE' where id = :id").param("id", worker).update();
        assertThat(claim(worker, 1)).as("UNREACHABLE").isEmpty();

        api.post("/workers/" + worker + "/ping", null);
        api.put("/workers/" + worker + "/directive", Map.of("directive", "QUIET"));
        assertThat(claim(worker, 1)).as("QUIET").isEmpty();
        api.put("/workers/" + worker + "/directive", Map.of("directive", "TERMINATE"));
        assertThat(claim(worker, 1)).as("TERMINATE").isEmpty();

        api.put("/workers/" + worker + "/directive", Map.of("directive", "RUN"));
        api.post("/workers/" + worker + "/unregister", null);
        assertThat(claim(worker, 1)).as("OFFLINE").isEmpty();

        api.post("/workers/" + worker + "/ping", null);
        assertThat(claim(worker, 1)).as("back ONLINE").hasSize(1);
    }

    @Test
    void aPollDefaultsToEveryRegisteredBlockAndRefusesOthers() {
        UUID id = registerWorker("w");
        List<UUID> blocks = registerBlocks(id, List.of(block("echo", "1.0.0"), block("ping", "1.0.0")));
        UUID foreign = registerBlocks(registerWorker("other"), List.of(block("backup", "1.0.0"))).getFirst();
        UUID echoJob = createJob(blocks.get(0), Map.of());
        UUID pingJob = createJob(blocks.get(1), Map.of());
        createJob(foreign, Map.of());

        Api.Response onlyPing = api.post("/blackboard/job", Map.of("workerId", id,
                "functionBlockIds", List.of(blocks.get(1))));
        assertThat(onlyPing.body().valueStream().map(BlackboardTest::id).toList()).containsExactly(pingJob);

        jdbc.sql("update worker set concurrency = 10 where id = :id").param("id", id).update();
        assertThat(claim(id, 10)).containsExactly(echoJob);

        assertProblem(api.post("/blackboard/job", Map.of("workerId", id, "functionBlockIds", List.of(foreign))),
                422, foreign.toString());
        assertProblem(api.post("/blackboard/job", Map.of("workerId", UUID.randomUUID())), 404, "register again");
        assertProblem(api.post("/blackboard/job", Map.of("workerId", id, "limit", 101)), 400, "limit");
        assertProblem(api.post("/blackboard/job", Map.of("workerId", id, "waitMs", 30_001)), 400, "waitMs");
        assertProblem(api.post("/blackboard/job", Map.of("limit", 1)), 400, "workerId");
    }

    @Test
    void underContentionEveryJobIsClaimedExactlyOnce() throws Exception {
        UUID block = null;
        List<UUID> workers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            UUID id = worker("w" + i, Map.of("concurrency", 10000), List.of(block("echo", "1.0.0")));
            workers.add(id);
            block = registerBlocks(id, List.of(block("echo", "1.0.0"))).getFirst();
        }
        Set<UUID> created = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            created.addAll(createJobs(block, 500));
        }

        List<UUID> claims = Collections.synchronizedList(new ArrayList<>());
        try (var pool = Executors.newFixedThreadPool(16)) {
            for (int t = 0; t < 16; t++) {
                UUID id = workers.get(t % workers.size());
                pool.submit(() -> {
                    List<UUID> got;
                    do {
                        got = claim(id, ThreadLocalRandom.current().nextInt(1, 11));
                        claims.addAll(got);
                    } while (!got.isEmpty());
                    return null;
                });
            }
        }

        assertThat(claims).doesNotHaveDuplicates();
        assertThat(new HashSet<>(claims)).isEqualTo(created);
        assertThat(jdbc.sql("select count(*) from job_event where kind = 'CLAIMED'").query(Long.class).single())
                .isEqualTo(created.size());
    }
}
