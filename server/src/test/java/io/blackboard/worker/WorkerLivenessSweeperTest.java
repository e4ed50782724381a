package io.blackboard.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.IntegrationTest;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

class WorkerLivenessSweeperTest extends IntegrationTest {

    @Autowired
    WorkerLivenessSweeper sweeper;

    @Test
    void aSilentWorkerCascadesThroughUnreachableAndOfflineToDeleted() {
        UUID id = registerWorker("w");

        silence(id, "3 minutes");
        assertThat(sweeper.runOnce().unreachable()).isEqualTo(1);
        assertThat(state(id)).isEqualTo("UNREACHABLE");

        silence(id, "7 minutes");
        assertThat(sweeper.runOnce().offline()).isEqualTo(1);
        assertThat(state(id)).isEqualTo("OFFLINE");

        assertThat(sweeper.runOnce()).as("nothing left to do").isEqualTo(new WorkerLivenessSweeper.Result(0, 0, 0, 0));

        jdbc.sql("update worker set state_changed_at = now() - interval '25 hours' where id = :id")
                .param("id", id).update();
        assertThat(sweeper.runOnce().deleted()).isEqualTo(1);
        assertThat(api.get("/workers/" + id).at("/deletedAt").isNull()).isFalse();
        assertProblem(api.post("/workers/" + id + "/ping", null), 404, "register again");
    }

    @Test
    void aPingBringsAnUnreachableOrOfflineWorkerBackOnline() {
        UUID id = registerWorker("w");
        silence(id, "3 minutes");
        sweeper.runOnce();
        assertThat(api.post("/workers/" + id + "/ping", null).at("/state").asString()).isEqualTo("ONLINE");

        silence(id, "10 minutes");
        sweeper.runOnce();
        assertThat(state(id)).isEqualTo("OFFLINE");
        assertThat(api.post("/workers/" + id + "/ping", null).at("/state").asString()).isEqualTo("ONLINE");
    }

    @Test
    void workersThatPingInTimeAreLeftAlone() {
        UUID fresh = registerWorker("fresh");
        UUID recent = registerWorker("recent");
        silence(recent, "110 seconds");

        assertThat(sweeper.runOnce()).isEqualTo(new WorkerLivenessSweeper.Result(0, 0, 0, 0));
        assertThat(state(fresh)).isEqualTo("ONLINE");
        assertThat(state(recent)).isEqualTo("ONLINE");
    }

    @Test
    void anOfflineWorkerIsNotDeletedBeforeTheDeleteThreshold() {
        UUID id = registerWorker("w");
        silence(id, "23 hours");
        sweeper.runOnce();
        jdbc.sql("update worker set state_changed_at = now() - interval '23 hours' where id = :id")
                .param("id", id).update();

        assertThat(sweeper.runOnce().deleted()).isZero();
        assertThat(state(id)).isEqualTo("OFFLINE");
    }

    @Test
    void sweepersRunningAtOnceMoveEachWorkerExactlyOnce() throws Exception {
        List<UUID> ids = registerWorkers(1200);
        jdbc.sql("update worker set last_seen_at = now() - interval '7 minutes'").update();

        int offline = fourReplicasSweep().stream().mapToInt(result -> (int) result.offline()).sum();

        assertThat(offline).isEqualTo(ids.size());
        assertThat(jdbc.sql("select count(*) from worker where state = 'OFFLINE'").query(Long.class).single())
                .isEqualTo(ids.size());
    }

    /** More silent workers than one batch: every pass marks them UNREACHABLE batch by batch, each once. */
    @Test
    void manySilentWorkersBecomeUnreachableInBatchesEachOnce() throws Exception {
        List<UUID> ids = registerWorkers(WorkerService.BATCH * 2 + 100);
        jdbc.sql("update worker set last_seen_at = now() - interval '3 minutes'").update();

        int unreachable = fourReplicasSweep().stream().mapToInt(result -> (int) result.unreachable()).sum();

        assertThat(unreachable).isEqualTo(ids.size());
        assertThat(jdbc.sql("select count(*) from worker where state = 'UNREACHABLE'").query(Long.class).single())
                .isEqualTo(ids.size());
    }

    private List<UUID> registerWorkers(int count) {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ids.add(registerWorker("w" + i));
        }
        return ids;
    }

    /** Four replicas' sweeps at once. */
    private List<WorkerLivenessSweeper.Result> fourReplicasSweep() throws Exception {
        List<Callable<WorkerLivenessSweeper.Result>> replicas = List.of(sweeper::runOnce, sweeper::runOnce,
                sweeper::runOnce, sweeper::runOnce);
        List<WorkerLivenessSweeper.Result> results = new ArrayList<>();
        try (var pool = Executors.newFixedThreadPool(4)) {
            for (Future<WorkerLivenessSweeper.Result> result : pool.invokeAll(replicas)) {
                results.add(result.get());
            }
        }
        return results;
    }

    private void silence(UUID id, String interval) {
        jdbc.sql("update worker set last_seen_at = now() - cast(:interval as interval) where id = :id")
                .param("interval", interval).param("id", id).update();
    }

    private String state(UUID id) {
        return jdbc.sql("select state from worker where id = :id").param("id", id).query(String.class).single();
    }
}
