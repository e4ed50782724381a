package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import io.blackboard.platform.scheduling.Sweeper;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

class ServerSideFailureTest extends BlackboardTest {

    @Autowired
    StuckJobSweeper stuckJobs;

    @Autowired
    List<Sweeper> sweepers;

    /** The worker-liveness sweeper, through the platform interface (its class is the worker feature's own). */
    Sweeper workerSweeper() {
        return sweepers.stream().filter(s -> s.name().equals("worker-liveness")).findFirst().orElseThrow();
    }

    @Test
    void aJobPastItsDeadlineIsFailedWithStuckTimeout() {
        workerServingEcho(Map.of("concurrency", 2));
        UUID stuck = createJob(echo, Map.of());
        UUID fine = createJob(echo, Map.of());
        claim(worker, 2);
        expire(stuck);

        assertThat(stuckJobs.runOnce()).isEqualTo(new StuckJobSweeper.Result(1, 0));

        var job = job(stuck);
        assertThat(job.get("status").asString()).isEqualTo("PUSHED");
        assertThat(job.get("outcome").asString()).isEqualTo("FAILURE");
        assertThat(job.get("failureReason").asString()).isEqualTo("STUCK_TIMEOUT");
        assertThat(job.get("error").asString()).contains("deadline");
        assertThat(status(fine)).isEqualTo("POLLED");
        assertThat(stuckJobs.runOnce()).isEqualTo(new StuckJobSweeper.Result(0, 0));
        assertProblem(push(stuck, worker, Map.of()), 409, "STUCK_TIMEOUT");
    }

    @Test
    void aWorkerGoingOfflineFailsEveryJobItHoldsAtOnce() {
        workerServingEcho(Map.of("concurrency", 3));
        List<UUID> held = createJobs(echo, 3);
        claim(worker, 3);
        jdbc.sql("update worker set last_seen_at = now() - interval '7 minutes' where id = :id")
                .param("id", worker).update();

        assertThat(workerSweeper().runOnce()).hasToString("Result[offline=1, jobsTakenBack=3, unreachable=0, deleted=0]");

        for (UUID id : held) {
            assertThat(job(id).get("failureReason").asString()).isEqualTo("WORKER_OFFLINE");
        }
    }

    @Test
    void unregisterFailsHeldJobsWithWorkerOffline() {
        workerServingEcho(Map.of());
        UUID held = createJob(echo, Map.of());
        claim(worker, 1);

        api.post("/workers/" + worker + "/unregister", null);

        assertThat(job(held).get("failureReason").asString()).isEqualTo("WORKER_OFFLINE");
    }

    @Test
    void deletingAWorkerFailsHeldJobsWithWorkerDeleted() {
        workerServingEcho(Map.of());
        UUID held = createJob(echo, Map.of());
        UUID waiting = createJob(echo, Map.of());
        claim(worker, 1);

        api.delete("/workers/" + worker);

        assertThat(job(held).get("failureReason").asString()).isEqualTo("WORKER_DELETED");
        assertThat(status(waiting)).as("PENDING jobs wait for another worker").isEqualTo("PENDING");
    }

    @Test
    void anUnreachableWorkerKeepsTheJobsItHolds() {
        workerServingEcho(Map.of());
        UUID held = createJob(echo, Map.of());
        claim(worker, 1);
        jdbc.sql("update worker set last_seen_at = now() - interval '3 minutes' where id = :id")
                .param("id", worker).update();

        workerSweeper().runOnce();

        assertThat(api.get("/workers/" + worker).at("/state").asString()).isEqualTo("UNREACHABLE");
        assertThat(status(held)).isEqualTo("POLLED");
        assertThat(push(held, worker, Map.of()).status()).isEqualTo(200);
    }

    @Test
    void anIdempotentBlockIsRequeuedWhileAttemptsRemainThenFailedForGood() {
        UUID id = worker("w", Map.of(), List.of(Map.of("name", "backup", "version", "1", "idempotent", true)));
        UUID backup = registerBlocks(id, List.of(Map.of("name", "backup", "version", "1", "idempotent", true)))
                .getFirst();
        UUID job = createJob(backup, Map.of("maxAttempts", 2));

        claim(id, 1);
        expire(job);
        assertThat(stuckJobs.runOnce()).isEqualTo(new StuckJobSweeper.Result(0, 1));
        var requeued = job(job);
        assertThat(requeued.get("status").asString()).isEqualTo("PENDING");
        assertThat(requeued.get("attempt").asInt()).isEqualTo(1);
        assertThat(requeued.get("workerId").isNull()).isTrue();

        assertThat(claim(id, 1)).containsExactly(job);
        assertThat(job(job).get("attempt").asInt()).isEqualTo(2);
        expire(job);
        assertThat(stuckJobs.runOnce()).isEqualTo(new StuckJobSweeper.Result(1, 0));
        assertThat(job(job).get("failureReason").asString()).isEqualTo("STUCK_TIMEOUT");
        assertThat(eventKinds(job)).containsExactly("CREATED", "CLAIMED", "REQUEUED", "CLAIMED", "FAILED");
    }

    @Test
    void aPureBlockIsRequeuedWhenItsWorkerIsLost() {
        UUID id = worker("w", Map.of(), List.of(Map.of("name", "lookup", "version", "1", "pure", true)));
        UUID lookup = registerBlocks(id, List.of(Map.of("name", "lookup", "version", "1", "pure", true))).getFirst();
        UUID job = createJob(lookup, Map.of("maxAttempts", 3));
        claim(id, 1);

        api.post("/workers/" + id + "/unregister", null);

        assertThat(status(job)).isEqualTo("PENDING");
    }

    @Test
    void aBlockThatIsNeitherPureNorIdempotentIsNeverRunTwice() {
        workerServingEcho(Map.of());
        UUID job = createJob(echo, Map.of("maxAttempts", 5));
        claim(worker, 1);
        expire(job);

        assertThat(stuckJobs.runOnce()).isEqualTo(new StuckJobSweeper.Result(1, 0));
        assertThat(job(job).get("outcome").asString()).isEqualTo("FAILURE");
    }

    @Test
    void aStalePushAfterTheJobMovedOnIsRefusedAndTheRowIsUnchanged() {
        UUID first = worker("first", Map.of(), List.of(Map.of("name", "backup", "version", "1", "idempotent", true)));
        UUID second = worker("second", Map.of(), List.of(Map.of("name", "backup", "version", "1", "idempotent", true)));
        UUID backup = registerBlocks(second, List.of(Map.of("name", "backup", "version", "1", "idempotent", true)))
                .getFirst();
        UUID job = createJob(backup, Map.of("maxAttempts", 2));
        claim(first, 1);
        expire(job);
        stuckJobs.runOnce();
        assertThat(claim(second, 1)).containsExactly(job);
        String before = row(job);

        var stale = push(job, first, Map.of("attempt", 1));

        assertProblem(stale, 409, "not held");
        assertThat(stale.at("/attempt").asInt()).isEqualTo(2);
        assertThat(row(job)).isEqualTo(before);
        assertThat(push(job, second, Map.of("attempt", 2)).status()).isEqualTo(200);
    }

    private List<String> eventKinds(UUID job) {
        return api.get("/blackboard/jobs/" + job + "/events").body().valueStream()
                .map(e -> e.get("kind").asString()).toList();
    }
}
