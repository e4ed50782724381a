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

/** Three real server processes on one database, 64 concurrent pollers, 10,000 jobs. */
class MultiReplicaIT {

    final ChaosDatabase database = ChaosDatabase.fromEnvironment();
    final List<Replica> replicas = new ArrayList<>();
    final List<SimWorker> workers = new ArrayList<>();

    @BeforeEach
    void startReplicas() {
        for (int i = 0; i < 3; i++) {
            // no response is lost here: a generous grace keeps a slow machine from releasing live claims
            replicas.add(new Replica("replica-" + i, database, Map.of("BLACKBOARD_ORPHAN_GRACE_MS", "30000")).start());
        }
        database.reset();
    }

    @AfterEach
    void stop() throws Exception {
        for (SimWorker worker : workers) {
            worker.crash();
        }
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
    void everyJobIsClaimedExactlyOnceAndPushedAndEveryExpiredJobFailsExactlyOnce() throws Exception {
        for (int i = 0; i < 16; i++) {
            workers.add(SimWorker.register(anyLiveReplica(), "w" + i, 8,
                    List.of(Map.of("name", "echo", "version", "1"), Map.of("name", "hole", "version", "1"))));
        }
        UUID echo = block("echo");
        UUID hole = block("hole");
        Engine engine = new Engine(anyLiveReplica());
        workers.forEach(worker -> worker.start(4));   // 64 pollers

        engine.create(echo, 10_000, Map.of());
        Invariants invariants = new Invariants(database);
        invariants.awaitDrained(engine.created, Duration.ofMinutes(5));
        for (SimWorker worker : workers) {
            worker.stop();
        }
        invariants.check(engine.created, workers);
        assertThat(invariants.count("select count(*) from job where outcome = 'SUCCESS'")).isEqualTo(10_000);
        assertThat(invariants.count("select count(*) from job_event where kind = 'CLAIMED'"))
                .as("claims: one per job, none repeated").isEqualTo(10_000);

        // jobs claimed by a worker that then vanishes: the three replicas' sweepers race to fail them
        SimWorker blackHole = SimWorker.register(anyLiveReplica(), "black-hole", 500,
                List.of(Map.of("name", "hole", "version", "1")));
        Engine holes = new Engine(anyLiveReplica());
        holes.create(hole, 300, Map.of());
        Api api = anyLiveReplica().get().as("test-all");
        int claimed = 0;
        while (claimed < 300) {
            claimed += api.post("/blackboard/job", Map.of("workerId", blackHole.id, "limit", 100)).body().size();
        }
        String before = invariants.endedJobs(echo);
        database.jdbc().sql("update job set deadline = now() - interval '1 second' where status = 'POLLED'").update();
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

    private UUID block(String name) {
        Api.Response catalog = anyLiveReplica().get().as("test-engine").get("/function-blocks");
        return catalog.body().valueStream().filter(fb -> fb.get("name").asString().equals(name))
                .map(fb -> UUID.fromString(fb.get("id").asString())).findFirst().orElseThrow();
    }
}
