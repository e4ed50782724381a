package io.blackboard.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A deleted worker is told 404 on every call made for it with the token it was given (DESIGN.md:
 * it then registers again), whether the replica that answers deleted it or only remembers its
 * token; and the call changes nothing.
 */
class DeletedWorkerTest extends IntegrationTest {

    private record Worker(UUID id, Api api, UUID block) {
    }

    private Worker registerWithBlock(String name) {
        Api.Response registered = api.as("test-worker").post("/workers/register", Map.of("name", name));
        assertThat(registered.status()).as(registered.toString()).isEqualTo(201);
        UUID id = UUID.fromString(registered.at("/id").asString());
        Api mine = api.as(registered.at("/token").asString());
        Api.Response blocks = mine.post("/function-blocks/register",
                Map.of("workerId", id, "functionBlocks", List.of(block("echo", "1"))));
        assertThat(blocks.status()).as(blocks.toString()).isEqualTo(200);
        return new Worker(id, mine, UUID.fromString(blocks.at("/0/id").asString()));
    }

    @Test
    void everyCallOfADeletedWorkerIsA404AndChangesNothing() {
        Worker worker = registerWithBlock("doomed");
        UUID job = createJob(worker.block());
        Api.Response polled = worker.api().post("/blackboard/job", Map.of("workerId", worker.id()));
        assertThat(polled.at("/0/id").asString()).isEqualTo(job.toString());

        assertThat(api.as("test-operator").delete("/workers/" + worker.id()).status()).isEqualTo(204);

        assertAllCallsAre404(worker, job);
    }

    @Test
    void aReplicaThatStillRemembersTheTokenAnswers404Too() {
        Worker worker = registerWithBlock("remembered");
        UUID job = createJob(worker.block());
        assertThat(worker.api().post("/blackboard/job", Map.of("workerId", worker.id())).status()).isEqualTo(200);
        // deleted behind this replica's back (by another replica, which took its job back in the
        // same transaction): the token stays remembered here, as on any replica that verified it
        // in the last minute
        jdbc.sql("update worker set deleted_at = now(), state = 'OFFLINE' where id = :id").param("id", worker.id())
                .update();
        jdbc.sql("update job set status = 'PENDING', worker_id = null, polled_at = null, deadline = null where id = :id").param("id", job).update();

        assertAllCallsAre404(worker, job);
    }

    private void assertAllCallsAre404(Worker worker, UUID job) {
        String before = jdbc.sql("select row_to_json(j)::text from job j where id = :id").param("id", job)
                .query(String.class).single();
        Map<String, Object> push = Map.of("jobId", job, "workerId", worker.id(), "attempt", 1, "status", "SUCCESS",
                "result", Map.of());
        assertProblem(worker.api().post("/workers/" + worker.id() + "/ping", Map.of("activeJobIds", List.of(job))),
                404, "register again");
        assertProblem(worker.api().post("/workers/" + worker.id() + "/ping", null), 404, "register again");
        assertProblem(worker.api().post("/blackboard/job", Map.of("workerId", worker.id(), "waitMs", 1000)), 404,
                "register again");
        assertProblem(worker.api().post("/blackboard/job/result", push), 404, "register again");
        assertProblem(worker.api().post("/blackboard/job/results", List.of(push)), 404, "register again");
        assertProblem(worker.api().post("/blackboard/job/next", Map.of("workerId", worker.id(), "results",
                List.of(push))), 404, "register again");
        assertProblem(worker.api().post("/function-blocks/register",
                Map.of("workerId", worker.id(), "functionBlocks", List.of(block("echo", "1")))), 404, "register again");
        assertProblem(worker.api().post("/workers/" + worker.id() + "/unregister", null), 404, "register again");

        assertThat(jdbc.sql("select row_to_json(j)::text from job j where id = :id").param("id", job)
                .query(String.class).single()).as("the job is untouched").isEqualTo(before);
        assertThat(jdbc.sql("select deleted_at is not null from worker where id = :id").param("id", worker.id())
                .query(Boolean.class).single()).as("still deleted").isTrue();
    }

    private UUID createJob(UUID block) {
        Api.Response created = api.as("test-engine").post("/blackboard/jobs",
                Map.of("functionBlockId", block, "type", "EXECUTE"));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return UUID.fromString(created.at("/id").asString());
    }
}
