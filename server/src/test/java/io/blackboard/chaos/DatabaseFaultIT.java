package io.blackboard.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL restarted under load, and every server connection killed, on a database of its own
 * that this test stops and starts ({@link ChaosDatabase#restartable()}).
 */
class DatabaseFaultIT {

    @Test
    void theServerFailsFastWhileThePostgresIsDownAndRecoversByItself() throws Exception {
        ChaosDatabase.Restartable postgres = ChaosDatabase.restartable();
        ChaosDatabase database = postgres.database();
        Map<String, String> slowRecheck = Map.of("BLACKBOARD_POLL_RECHECK_MS", "60000");
        try (Replica a = new Replica("db-a", database, slowRecheck).start();
                Replica b = new Replica("db-b", database, slowRecheck).start();
                ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            database.reset();
            List<Map<String, Object>> blocks = List.of(Map.of("name", "echo", "version", "1", "idempotent", true));
            SimWorker worker = SimWorker.register(a::api, "w", 10, blocks).start(2);
            UUID echo = UUID.fromString(a.api().as("test-engine").get("/function-blocks").at("/0/id").asString());
            Engine engine = new Engine(a::api);
            engine.create(echo, 200, Map.of("maxAttempts", 5));
            // jobs created while PostgreSQL stops and starts again
            Future<?> creating = pool.submit(() -> engine.create(echo, 300, Map.of("maxAttempts", 5)));

            postgres.stop().run();
            awaitStatus(a, 503, Duration.ofSeconds(15));
            for (int i = 0; i < 5; i++) {
                long start = System.nanoTime();
                int status = a.api().as("test-engine").get("/blackboard/jobs?limit=1").status();
                long tookMs = (System.nanoTime() - start) / 1_000_000;
                assertThat(status).as("a request while PostgreSQL is down").isEqualTo(503);
                assertThat(tookMs).as("it fails fast").isLessThan(8_000);
            }

            postgres.start().run();
            long back = System.nanoTime();
            awaitStatus(a, 200, Duration.ofSeconds(10));
            awaitStatus(b, 200, Duration.ofSeconds(10));
            assertThat((System.nanoTime() - back) / 1_000_000).as("recovered within 10 s").isLessThan(10_000);
            assertThat(a.api().as("test-engine").get("/blackboard/jobs?limit=1").status()).isEqualTo(200);
            creating.get(60, TimeUnit.SECONDS);
            assertThat(worker.serverErrors.list()).as("the worker's answers: 503 with Retry-After, never a 500")
                    .isEmpty();
            assertThat(engine.serverErrors.list()).as("the engine's answers").isEmpty();

            // a poll parked on replica a is woken by a job created on replica b: LISTEN is back
            SimWorker listener = SimWorker.register(a::api, "parked", 1, blocks);
            Replica.sleep(6_000); // the listener reconnects with backoff
            Future<Api.Response> parked = pool.submit(() -> a.api().post("/blackboard/job",
                    Map.of("workerId", listener.id, "functionBlockIds", List.of(echo), "waitMs", 30_000)));
            worker.stop();
            Replica.sleep(1_000);
            new Engine(b::api).create(echo, 1, Map.of());
            Api.Response woken = parked.get(20, TimeUnit.SECONDS);
            assertThat(woken.status()).isEqualTo(200);

            // every server connection killed: the next requests succeed
            database.jdbc().sql("""
                    select count(pg_terminate_backend(pid)) from pg_stat_activity
                     where datname = current_database() and pid <> pg_backend_pid()
                       and application_name <> ''""").query(Long.class).single();
            Replica.sleep(1_000);
            for (int i = 0; i < 10; i++) {
                assertThat(a.api().as("test-engine").get("/blackboard/jobs?limit=1").status())
                        .as("request %d after pg_terminate_backend", i).isEqualTo(200);
            }
        }
    }

    private static void awaitStatus(Replica replica, int status, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (replica.readiness() != status) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("readiness of the replica is not " + status + " within " + within);
            }
            Replica.sleep(200);
        }
    }
}
