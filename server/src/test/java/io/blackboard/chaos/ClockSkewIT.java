package io.blackboard.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Replicas whose JVM clocks are wrong take exactly the decisions a correct replica takes:
 * every comparison is on the database clock. One replica runs 15 minutes ahead under
 * libfaketime, beside a correct one. (A JVM 15 minutes behind cannot be run this way:
 * libfaketime shifts the process CPU-time clocks too, negative ones stall the JVM. The
 * other direction is covered by {@link NoJvmClockDecisionsTest}, which finds no read of the
 * JVM clock that a decision could rest on.)
 */
class ClockSkewIT {

    final ChaosDatabase database = ChaosDatabase.fromEnvironment();

    @Test
    void aJvmClockMovedFifteenMinutesChangesNoLivenessOrDeadlineDecision() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/faketime")), "faketime is installed (.ci/run installs it)");
        try (Replica ahead = skewed("ahead", "+15m");
                Replica correct = new Replica("correct", database, Map.of()).start()) {
            database.reset();
            List<Map<String, Object>> blocks = List.of(Map.of("name", "echo", "version", "1"));
            SimWorker viaAhead = SimWorker.register(ahead::api, "via-ahead", 5, blocks).startHeartbeat();
            SimWorker viaCorrect = SimWorker.register(correct::api, "via-correct", 5, blocks).startHeartbeat();
            UUID echo = UUID.fromString(ahead.api().as("test-engine").get("/function-blocks").at("/0/id").asString());
            Engine engine = new Engine(ahead::api);
            engine.create(echo, 2, Map.of());
            assertThat(viaAhead.claimWithoutRunning(1)).isEqualTo(1);
            assertThat(viaCorrect.claimWithoutRunning(1)).isEqualTo(1);

            // both replicas' sweepers run every 500 ms; give them several passes
            Replica.sleep(3_000);

            Invariants db = new Invariants(database);
            assertThat(db.count("select count(*) from worker where state = 'ONLINE'")).as("workers ONLINE").isEqualTo(2);
            assertThat(db.count("select count(*) from job where status = 'POLLED'")).as("jobs still held").isEqualTo(2);
            assertThat(db.count("""
                    select count(*) from job
                     where deadline between now() + interval '20 seconds' and now() + interval '31 seconds'
                    """)).as("deadlines = database now + the stuck timeout").isEqualTo(2);
            assertThat(db.count("""
                    select count(*) from worker where last_seen_at between now() - interval '1 minute' and now()
                    """)).as("heartbeats stamped on the database clock").isEqualTo(2);
            viaAhead.stop();
            viaCorrect.stop();
        }
    }

    private Replica skewed(String name, String offset) {
        return new Replica(name, database, Map.of("FAKETIME_DONT_FAKE_MONOTONIC", "1"),
                List.of("/usr/bin/faketime", "-f", offset)).start();
    }
}
