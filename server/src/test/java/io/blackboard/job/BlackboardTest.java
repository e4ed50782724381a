package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import io.blackboard.RowLock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import javax.sql.DataSource;
import tools.jackson.databind.JsonNode;

/** Fixtures for the blackboard tests: a worker serving a function block, jobs, polls and pushes. */
abstract class BlackboardTest extends IntegrationTest {

    protected UUID worker;
    protected UUID echo;

    /** Registers a worker (with the given extra registration fields) serving echo@1.0.0; sets both fields. */
    protected void workerServingEcho(Map<String, Object> registration) {
        Map<String, Object> body = new HashMap<>(Map.of("name", "worker"));
        body.putAll(registration);
        worker = registerWorker(body);
        echo = registerBlocks(worker, List.of(block("echo", "1.0.0"))).getFirst();
    }

    protected UUID worker(String name, Map<String, Object> registration, List<Map<String, Object>> blocks) {
        Map<String, Object> body = new HashMap<>(Map.of("name", name));
        body.putAll(registration);
        UUID id = registerWorker(body);
        registerBlocks(id, blocks);
        return id;
    }

    protected UUID createJob(UUID functionBlockId, Map<String, Object> fields) {
        Map<String, Object> body = new HashMap<>(Map.of("functionBlockId", functionBlockId, "type", "EXECUTE",
                "payload", Map.of("host", "r1")));
        body.putAll(fields);
        Api.Response response = api.post("/blackboard/jobs", body);
        assertThat(response.status()).as(response.toString()).isIn(200, 201);
        return id(response.body());
    }

    protected List<UUID> createJobs(UUID functionBlockId, int count) {
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            batch.add(Map.of("functionBlockId", functionBlockId, "type", "EXECUTE", "payload", Map.of("n", i)));
        }
        Api.Response response = api.post("/blackboard/jobs", batch);
        assertThat(response.status()).as(response.toString()).isEqualTo(201);
        return response.body().valueStream().map(BlackboardTest::id).toList();
    }

    protected Api.Response poll(UUID workerId, int limit) {
        return api.post("/blackboard/job", Map.of("workerId", workerId, "limit", limit));
    }

    protected List<UUID> claim(UUID workerId, int limit) {
        Api.Response response = poll(workerId, limit);
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return response.body().valueStream().map(BlackboardTest::id).toList();
    }

    /** A job of the block that {@link #worker} has claimed, the only one the poll found. */
    protected UUID claimedJob(UUID functionBlockId) {
        UUID job = createJob(functionBlockId, Map.of());
        assertThat(claim(worker, 1)).containsExactly(job);
        return job;
    }

    protected Api.Response push(UUID jobId, UUID workerId, Map<String, Object> fields) {
        Map<String, Object> body = new HashMap<>(Map.of("jobId", jobId, "workerId", workerId, "status", "SUCCESS"));
        body.putAll(fields);
        return api.post("/blackboard/job/result", body);
    }

    protected JsonNode job(UUID id) {
        Api.Response response = api.get("/blackboard/jobs/" + id);
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return response.body();
    }

    protected String status(UUID id) {
        return job(id).get("status").asString();
    }

    /** Moves a POLLED job's deadline into the past, as if the stuck timeout had elapsed. */
    protected void expire(UUID jobId) {
        jdbc.sql("update job set deadline = now() - interval '1 second' where id = :id").param("id", jobId).update();
    }

    /** The job's whole row as text, to prove a rejected request changed nothing. */
    protected String row(UUID jobId) {
        return jdbc.sql("select row_to_json(j)::text from job j where id = :id").param("id", jobId)
                .query(String.class).single();
    }

    static UUID id(JsonNode node) {
        return UUID.fromString(node.get("id").asString());
    }

    /** Statements of this database waiting for a lock whose text contains {@code fragment}. */
    protected long waitingOnLocks(String fragment) {
        return jdbc.sql("""
                select count(*) from pg_stat_activity
                 where datname = current_database() and wait_event_type = 'Lock' and query like '%' || :fragment || '%'
                """).param("fragment", fragment).query(Long.class).single();
    }

    /** Waits until {@code condition} holds, failing after 15 s. */
    protected static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within 15 s").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /**
     * Runs {@code calls} while every slot of a coalescer's shared transactions is held: the holder
     * worker's row is locked here, and {@code hold} (a request of the holder's) is sent once per
     * slot, one at a time (two sent together may share one transaction), each then waiting on the
     * row; the calls are sent and queue behind them ({@code queued} counts them); after
     * {@code more}, the row is released. Answers in the order of the calls.
     */
    protected List<Api.Response> whileHeld(DataSource dataSource, UUID holder, Supplier<Api.Response> hold,
            IntSupplier queued, List<Supplier<Api.Response>> calls, Duration more) throws Exception {
        List<Future<Api.Response>> holders = new ArrayList<>();
        List<Future<Api.Response>> answers = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
                Connection lock = dataSource.getConnection()) {
            lock.setAutoCommit(false);
            try (PreparedStatement statement = lock.prepareStatement("select 1 from worker where id = ? for update")) {
                statement.setObject(1, holder);
                statement.execute();
            }
            try {
                for (int i = 1; i <= NextService.BATCHES_IN_FLIGHT; i++) {
                    holders.add(threads.submit(hold::get));
                    int waiting = i;
                    await(() -> waitingOnLocks("with polled as") == waiting);
                }
                for (Supplier<Api.Response> call : calls) {
                    answers.add(threads.submit(call::get));
                }
                await(() -> queued.getAsInt() == calls.size());
                Thread.sleep(more.toMillis());
            } finally {
                lock.rollback();
                lock.setAutoCommit(true);
            }
            for (Future<Api.Response> answer : holders) {
                assertThat(answer.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
            }
            List<Api.Response> done = new ArrayList<>();
            for (Future<Api.Response> answer : answers) {
                done.add(answer.get(30, TimeUnit.SECONDS));
            }
            return done;
        }
    }

    /** Sends calls as {@link #whileHeld} does, with the test's holder and coalescer. */
    @FunctionalInterface
    protected interface Held {
        List<Api.Response> run(List<Supplier<Api.Response>> calls) throws Exception;
    }

    /** The answers in the order of the calls, and whether all but the busy worker's came while its row was held. */
    protected record BusyAnswers(List<Api.Response> answers, boolean othersWhileHeld) {
    }

    /**
     * {@code calls} sent by {@code held}, with the row of the worker of call {@code busyCall}
     * ({@code busy}) also held by a transaction of its own until every other call is answered
     * (20 s at most): the answers, and whether the others were all answered while that row was
     * still held, so none of them waited on it.
     */
    protected BusyAnswers whileAlsoHeld(DataSource dataSource, UUID busy, int busyCall,
            List<Supplier<Api.Response>> calls, Held held) throws Exception {
        CountDownLatch others = new CountDownLatch(calls.size() - 1);
        List<Supplier<Api.Response>> counted = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            Supplier<Api.Response> call = calls.get(i);
            counted.add(i == busyCall ? call : () -> {
                try {
                    return call.get();
                } finally {
                    others.countDown();
                }
            });
        }
        AtomicBoolean othersFirst = new AtomicBoolean();
        RowLock lock = RowLock.hold(dataSource, "worker", busy);
        Thread releaser = Thread.ofVirtual().start(() -> {
            try {
                othersFirst.set(others.await(20, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                try {
                    lock.close();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        List<Api.Response> answers = held.run(counted);
        releaser.join();
        return new BusyAnswers(answers, othersFirst.get());
    }
}
