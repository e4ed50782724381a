package io.blackboard.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * kill -9 under load: a replica three times (restarted each time), and a worker mid-job. After
 * a full drain nothing is lost, nothing unexpected appears, and every job ended exactly once.
 */
class CrashIT {

    final ChaosDatabase database = ChaosDatabase.fromEnvironment();
    final List<Replica> replicas = new ArrayList<>();
    final List<SimWorker> workers = new ArrayList<>();

    @BeforeEach
    void startReplicas() {
        for (int i = 0; i < 3; i++) {
            replicas.add(new Replica("crash-" + i, database, Map.of()).start());
        }
        database.reset();
    }

    @AfterEach
    void stop() throws Exception {
        workers.forEach(SimWorker::crash);
        for (Replica replica : replicas) {
            replica.close();
        }
    }

    Supplier<Api> anyLiveReplica() {
        return () -> {
            List<Replica> live = replicas.stream().filter(Replica::alive).toList();
            return live.get(ThreadLocalRandom.current().nextInt(live.size())).api();
        };
    }

    @Test
    void killingReplicasAndAWorkerUnderLoadLosesNothing() throws Exception {
        // idempotent, so a job taken from a lost worker is re-queued rather than failed
        List<Map<String, Object>> blocks = List.of(Map.of("name", "backup", "version", "1", "idempotent", true));
        for (int i = 0; i < 8; i++) {
            workers.add(SimWorker.register(anyLiveReplica(), "w" + i, 6, blocks));
        }
        UUID backup = UUID.fromString(anyLiveReplica().get().as("test-engine").get("/function-blocks")
                .at("/0/id").asString());
        SimWorker doomed = SimWorker.register(anyLiveReplica(), "doomed", 20, blocks);
        Engine engine = new Engine(anyLiveReplica());
        engine.create(backup, 500, Map.of("maxAttempts", 5));
        assertThat(doomed.claimWithoutRunning(10) + doomed.claimWithoutRunning(10)).isEqualTo(20);
        doomed.crash(); // kill -9 of a worker holding 20 jobs
        workers.forEach(worker -> worker.start(4));

        Thread creator = Thread.ofVirtual().start(() -> engine.create(backup, 3_000, Map.of("maxAttempts", 5)));
        Replica victim = replicas.get(1);
        for (int round = 0; round < 3; round++) {
            Replica.sleep(2_000);
            victim.kill9();
            Replica.sleep(1_000);
            victim.start();
        }
        creator.join();
        // the lost worker's heartbeat is long gone: let the liveness sweeper see it at once
        database.jdbc().sql("update worker set last_seen_at = now() - interval '1 hour' where id = :id")
                .param("id", doomed.id).update();

        Invariants invariants = new Invariants(database);
        invariants.awaitDrained(engine.created, Duration.ofMinutes(5));
        for (SimWorker worker : workers) {
            worker.stop();
        }
        invariants.check(engine.created, workers);
        assertThat(engine.created).hasSize(3_500);
        assertThat(invariants.count("select count(*) from job where outcome = 'SUCCESS'")).isEqualTo(3_500);
        assertThat(invariants.count("select count(*) from job_event where kind = 'REQUEUED' and detail = 'WORKER_OFFLINE'"))
                .as("the crashed worker's jobs came back").isPositive();
        String ended = invariants.endedJobs(backup);
        Replica.sleep(2_000);
        assertThat(invariants.endedJobs(backup)).as("no ended job changes afterwards").isEqualTo(ended);
    }
}
