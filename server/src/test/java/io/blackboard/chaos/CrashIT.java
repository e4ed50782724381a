package io.blackboard.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * kill -9 under load: a replica three times (restarted each time), and a worker mid-job. After
 * a full drain nothing is lost, nothing unexpected appears, and every job ended exactly once.
 */
class CrashIT {

    Cluster cluster;

    @BeforeEach
    void startReplicas() {
        cluster = new Cluster("crash", 3, Map.of());
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    @Test
    void killingReplicasAndAWorkerUnderLoadLosesNothing() throws Exception {
        // idempotent, so a job taken from a lost worker is re-queued rather than failed
        List<Map<String, Object>> blocks = List.of(Map.of("name", "backup", "version", "1", "idempotent", true));
        List<SimWorker> workers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            workers.add(cluster.worker("w" + i, 6, blocks));
        }
        UUID backup = cluster.block("backup");
        SimWorker doomed = cluster.worker("doomed", 20, blocks);
        Engine engine = new Engine(cluster.anyLiveReplica());
        engine.create(backup, 500, Map.of("maxAttempts", 5));
        assertThat(doomed.claimWithoutRunning(10) + doomed.claimWithoutRunning(10)).isEqualTo(20);
        doomed.crash(); // kill -9 of a worker holding 20 jobs
        workers.forEach(worker -> worker.start(4));

        Thread creator = Thread.ofVirtual().start(() -> engine.create(backup, 3_000, Map.of("maxAttempts", 5)));
        Replica victim = cluster.replicas.get(1);
        List<Duration> restarts = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            Replica.sleep(2_000);
            victim.kill9();
            Replica.sleep(1_000);
            victim.start();
            restarts.add(victim.lastStart());
        }
        System.out.println("CrashIT: the killed replica was ready again in " + restarts + " under load");
        // issue 27 measured 58-94 s before the ahead-of-time start; its target, 15 s with two
        // replicas and PostgreSQL saturating the cores, is a figure of BENCHMARKS.md: here a
        // bound that a machine busier than the benchmark's (this test's own load on top) holds
        assertThat(restarts).as("restarts under load, launch to readiness")
                .allSatisfy(took -> assertThat(took).isLessThan(Duration.ofSeconds(30)));
        creator.join();
        // the lost worker's heartbeat is long gone: let the liveness sweeper see it at once
        cluster.database.jdbc().sql("update worker set last_seen_at = now() - interval '1 hour' where id = :id")
                .param("id", doomed.id).update();

        Invariants invariants = new Invariants(cluster.database);
        invariants.awaitDrained(engine.created, Duration.ofMinutes(5));
        cluster.stopWorkers();
        invariants.check(engine.created, workers);
        workers.forEach(worker -> assertThat(worker.serverErrors.list()).as("a worker's answers").isEmpty());
        assertThat(engine.serverErrors.list()).as("the engine's answers").isEmpty();
        assertThat(engine.created).hasSize(3_500);
        assertThat(invariants.count("select count(*) from job where outcome = 'SUCCESS'")).isEqualTo(3_500);
        assertThat(invariants.count("select count(*) from job_event where kind = 'REQUEUED' and detail = 'WORKER_OFFLINE'"))
                .as("the crashed worker's jobs came back").isPositive();
        String ended = invariants.endedJobs(backup);
        Replica.sleep(2_000);
        assertThat(invariants.endedJobs(backup)).as("no ended job changes afterwards").isEqualTo(ended);
    }
}
