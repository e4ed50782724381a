package io.blackboard.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Workers whose HTTP clients give up on a long poll before the poll would end (the client waits
 * 1.5 s, the poll asks for 4 s), saying so in Blackboard-Timeout-Ms as the SDKs do, on two
 * replicas of a loaded machine. Jobs trickle in, so polls are woken at every moment of their
 * wait. The server claims nothing for an answer nobody will read: after a full drain every job
 * ran exactly once, and hardly any claim had to be released because its answer was lost.
 */
class ImpatientClientsIT {

    Cluster cluster;

    @BeforeEach
    void startReplicas() {
        cluster = new Cluster("impatient", 2, Map.of());
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    @Test
    void clientsThatTimeOutAreHandedAlmostNoClaims() throws Exception {
        List<Map<String, Object>> blocks = List.of(Map.of("name", "check", "version", "1", "idempotent", true));
        List<SimWorker> workers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            workers.add(cluster.worker("w" + i, 4, blocks).impatient(Duration.ofMillis(1_500), 4_000).start(2));
        }
        UUID check = cluster.block("check");
        Engine engine = new Engine(cluster.anyLiveReplica());
        for (int round = 0; round < 150; round++) {
            engine.create(check, ThreadLocalRandom.current().nextInt(1, 11), Map.of());
            Replica.sleep(ThreadLocalRandom.current().nextInt(0, 200));
        }
        Invariants invariants = new Invariants(cluster.database);
        invariants.awaitDrained(engine.created, Duration.ofMinutes(3));
        cluster.stopWorkers();
        invariants.check(engine.created, workers);

        long jobs = engine.created.size();
        long released = invariants.count("select count(*) from job_event where kind = 'RELEASED'");
        long requeued = invariants.count("select count(*) from job_event where kind = 'REQUEUED'");
        int timedOut = workers.stream().mapToInt(worker -> worker.timedOut.get()).sum();
        System.out.printf("ImpatientClientsIT: %d jobs, %d polls timed out on the client, %d claims released, "
                + "%d re-queued%n", jobs, timedOut, released, requeued);
        assertThat(released + requeued).as("claims given back because their answer was lost, of %d jobs", jobs)
                .isLessThanOrEqualTo(Math.max(3, jobs / 100));
        workers.forEach(worker -> assertThat(worker.serverErrors.list()).as("a worker's answers").isEmpty());
    }
}
