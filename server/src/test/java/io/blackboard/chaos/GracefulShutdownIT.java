package io.blackboard.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** SIGTERM with 200 parked long polls: every one is answered before the process exits. */
class GracefulShutdownIT {

    final ChaosDatabase database = ChaosDatabase.fromEnvironment();

    @Test
    void sigtermAnswersEveryParkedPollAndLeavesNoJobHeldWithoutAnAnswer() throws Exception {
        try (Replica replica = new Replica("shutdown", database, Map.of()).start();
                ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            database.reset();
            List<Map<String, Object>> blocks = List.of(Map.of("name", "echo", "version", "1"));
            SimWorker worker = SimWorker.register(replica::api, "w", 1000, blocks);
            Api api = replica.api();
            List<Future<Api.Response>> polls = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                polls.add(pool.submit(() -> parkedPoll(api, worker.id)));
            }
            awaitParked(api, 200);

            long start = System.nanoTime();
            int exit = replica.terminate(Duration.ofSeconds(30));

            int answered = 0;
            int jobsReceived = 0;
            for (Future<Api.Response> poll : polls) {
                Api.Response response = poll.get(5, TimeUnit.SECONDS);
                assertThat(response.status()).as(response.toString()).isEqualTo(200);
                jobsReceived += response.body().size();
                answered++;
            }
            assertThat(answered).isEqualTo(200);
            assertThat(jobsReceived).isZero();
            assertThat(exit).as("exit code after SIGTERM").isIn(0, 143);
            assertThat((System.nanoTime() - start) / 1_000_000).as("shutdown time ms").isLessThan(20_000);
            assertThat(new Invariants(database).count("select count(*) from job where status = 'POLLED'")).isZero();
        }
    }

    /** A long poll as an SDK sends it: a 503 (the pool is busy with the burst) is retried. */
    private static Api.Response parkedPoll(Api api, UUID workerId) {
        while (true) {
            Api.Response response = api.post("/blackboard/job", Map.of("workerId", workerId, "waitMs", 30_000));
            if (response.status() != 503) {
                return response;
            }
            Replica.sleep(200);
        }
    }

    /** Waits until the server's own gauge counts that many parked polls. */
    private static void awaitParked(Api api, int polls) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            Api.Response gauge = api.as("test-operator").get("/actuator/metrics/blackboard.parked.polls");
            if (gauge.status() == 200 && gauge.at("/measurements/0/value").asDouble() >= polls) {
                return;
            }
            Replica.sleep(200);
        }
        throw new AssertionError(polls + " polls did not park");
    }
}
