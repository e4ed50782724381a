package io.blackboard.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Three real server processes on one database, 64 concurrent pollers, 10,000 jobs. */
class MultiReplicaIT {

    Cluster cluster;

    @BeforeEach
    void startReplicas() {
        // no response is lost here: a generous grace keeps a slow machine from releasing live claims
        cluster = new Cluster("replica", 3, Map.of("BLACKBOARD_ORPHAN_GRACE_MS", "30000"));
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    @Test
    void everyJobIsClaimedExactlyOnceAndPushedAndEveryExpiredJobFailsExactlyOnce() throws Exception {
        List<SimWorker> workers = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            workers.add(cluster.worker("w" + i, 8,
                    List.of(Map.of("name", "echo", "version", "1"), Map.of("name", "hole", "version", "1"))));
        }
        UUID echo = cluster.block("echo");
        UUID hole = cluster.block("hole");
        Engine engine = new Engine(cluster.anyLiveReplica());
        workers.forEach(worker -> worker.start(4));   // 64 pollers

        engine.create(echo, 10_000, Map.of());
        Invariants invariants = new Invariants(cluster.database);
        invariants.awaitDrained(engine.created, Duration.ofMinutes(5));
        cluster.stopWorkers();
        invariants.check(engine.created, workers);
        assertThat(invariants.count("select count(*) from job where outcome = 'SUCCESS'")).isEqualTo(10_000);
        assertThat(invariants.count("select count(*) from job_event where kind = 'CLAIMED'"))
                .as("claims: one per job, none repeated").isEqualTo(10_000);

        // jobs claimed by a worker that then vanishes: the three replicas' sweepers race to fail them
        SimWorker blackHole = cluster.worker("black-hole", 500, List.of(Map.of("name", "hole", "version", "1")));
        Engine holes = new Engine(cluster.anyLiveReplica());
        holes.create(hole, 300, Map.of());
        Api api = cluster.anyLiveReplica().get().as("test-all");
        int claimed = 0;
        while (claimed < 300) {
            claimed += api.post("/blackboard/job", Map.of("workerId", blackHole.id, "limit", 100)).body().size();
        }
        String before = invariants.endedJobs(echo);
        cluster.database.jdbc().sql("update job set deadline = now() - interval '1 second' where status = 'POLLED'").update();
        invariants.awaitDrained(holes.created, Duration.ofMinutes(2));
        Replica.sleep(2_000); // every replica's sweepers run again over the ended jobs

        assertThat(invariants.count("select count(*) from job where failure_reason = 'STUCK_TIMEOUT'"))
                .isEqualTo(300);
        assertThat(invariants.count("select count(*) from job_event where kind = 'FAILED'"))
                .as("each expired job failed exactly once").isEqualTo(300);
        assertThat(invariants.count("""
                select count(*) from job where outcome = 'SUCCESS'""")).isEqualTo(10_000);
        assertThat(invariants.endedJobs(echo)).as("no ended job changed afterwards").isEqualTo(before);
        assertThat(invariants.count("select count(*) from job_event e join job j on j.id = e.job_id "
                + "where j.outcome = 'SUCCESS' and e.kind <> 'CREATED' and e.kind <> 'CLAIMED' and e.kind <> 'PUSHED'"))
                .isZero();
    }
}
