package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import tools.jackson.databind.JsonNode;

/** Fixtures for the blackboard tests: a worker serving a function block, jobs, polls and pushes. */
abstract class BlackboardTest extends IntegrationTest {

    protected UUID worker;
    protected UUID echo;

    /** Registers a worker (with the given extra registration fields) serving echo@1.0.0; sets both fields. */
    protected void workerServingEcho(Map<String, Object> registration) {
        Map<String, Object> body = new HashMap<>(Map.of("name", "worker"));
        body.putAll(registration);
        worker = registerWorker(body);
        echo = registerBlocks(worker, List.of(block("echo", "1.0.0"))).getFirst();
    }

    protected UUID worker(String name, Map<String, Object> registration, List<Map<String, Object>> blocks) {
        Map<String, Object> body = new HashMap<>(Map.of("name", name));
        body.putAll(registration);
        UUID id = registerWorker(body);
        registerBlocks(id, blocks);
        return id;
    }

    protected UUID createJob(UUID functionBlockId, Map<String, Object> fields) {
        Map<String, Object> body = new HashMap<>(Map.of("functionBlockId", functionBlockId, "type", "EXECUTE",
                "payload", Map.of("host", "r1")));
        body.putAll(fields);
        Api.Response response = api.post("/blackboard/jobs", body);
        assertThat(response.status()).as(response.toString()).isIn(200, 201);
        return id(response.body());
    }

    protected List<UUID> createJobs(UUID functionBlockId, int count) {
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            batch.add(Map.of("functionBlockId", functionBlockId, "type", "EXECUTE", "payload", Map.of("n", i)));
        }
        Api.Response response = api.post("/blackboard/jobs", batch);
        assertThat(response.status()).as(response.toString()).isEqualTo(201);
        return response.body().valueStream().map(BlackboardTest::id).toList();
    }

    protected Api.Response poll(UUID workerId, int limit) {
        return api.post("/blackboard/job", Map.of("workerId", workerId, "limit", limit));
    }

    protected List<UUID> claim(UUID workerId, int limit) {
        Api.Response response = poll(workerId, limit);
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return response.body().valueStream().map(BlackboardTest::id).toList();
    }

    /** A job of the block that {@link #worker} has claimed, the only one the poll found. */
    protected UUID claimedJob(UUID functionBlockId) {
        UUID job = createJob(functionBlockId, Map.of());
        assertThat(claim(worker, 1)).containsExactly(job);
        return job;
    }

    protected Api.Response push(UUID jobId, UUID workerId, Map<String, Object> fields) {
        Map<String, Object> body = new HashMap<>(Map.of("jobId", jobId, "workerId", workerId, "status", "SUCCESS"));
        body.putAll(fields);
        return api.post("/blackboard/job/result", body);
    }

    protected JsonNode job(UUID id) {
        Api.Response response = api.get("/blackboard/jobs/" + id);
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return response.body();
    }

    protected String status(UUID id) {
        return job(id).get("status").asString();
    }

    /** Moves a POLLED job's deadline into the past, as if the stuck timeout had elapsed. */
    protected void expire(UUID jobId) {
        jdbc.sql("update job set deadline = now() - interval '1 second' where id = :id").param("id", jobId).update();
    }

    /** The job's whole row as text, to prove a rejected request changed nothing. */
    protected String row(UUID jobId) {
        return jdbc.sql("select row_to_json(j)::text from job j where id = :id").param("id", jobId)
                .query(String.class).single();
    }

    static UUID id(JsonNode node) {
        return UUID.fromString(node.get("id").asString());
    }

    /** Statements of this database waiting for a lock whose text contains {@code fragment}. */
    protected long waitingOnLocks(String fragment) {
        return jdbc.sql("""
                select count(*) from pg_stat_activity
                 where datname = current_database() and wait_event_type = 'Lock' and query like '%' || :fragment || '%'
                """).param("fragment", fragment).query(Long.class).single();
    }

    /** Waits until {@code condition} holds, failing after 15 s. */
    protected static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within 15 s").isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
