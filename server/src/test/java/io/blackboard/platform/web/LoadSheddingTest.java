package io.blackboard.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/**
 * Past BLACKBOARD_MAX_CONCURRENT_REQUESTS a request waits a little for a slot, past
 * BLACKBOARD_MAX_QUEUED_REQUESTS waiting ones it is answered at once: 503 instead of piling up.
 */
@TestPropertySource(properties = {"blackboard.load.max-concurrent-requests=2", "blackboard.load.max-queued-requests=1",
        "blackboard.load.queue-wait=2000", "blackboard.load.max-body-bytes-in-progress=1000"})
class LoadSheddingTest extends IntegrationTest {

    @Autowired
    DataSource dataSource;

    @Autowired
    MeterRegistry registry;

    @Test
    void pastTheBoundARequestIs503WithRetryAfterWhileHealthAndPollsStillAnswer() throws Exception {
        UUID stuck = registerWorker("stuck");
        UUID other = registerWorker("other");
        double shedBefore = registry.counter("blackboard.http.requests.shed").count();
        CompletableFuture<Api.Response> first;
        CompletableFuture<Api.Response> second;
        try (Connection lock = lockWorkerRow(stuck)) {
            // two pings wait on the worker row: both slots are taken
            first = CompletableFuture.supplyAsync(() -> api.post("/workers/" + stuck + "/ping", null));
            second = CompletableFuture.supplyAsync(() -> api.post("/workers/" + stuck + "/ping", null));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (registry.get("blackboard.http.requests.active").gauge().value() < 2) {
                assertThat(System.nanoTime()).as("two requests in progress").isLessThan(deadline);
                Thread.sleep(10);
            }

            long started = System.nanoTime();
            CompletableFuture<Api.Response> waiting = CompletableFuture.supplyAsync(() -> api.get("/workers/" + other));
            while (registry.get("blackboard.http.requests.queued").gauge().value() < 1) {
                assertThat(System.nanoTime()).as("one request waiting for a slot").isLessThan(deadline);
                Thread.sleep(10);
            }
            long queueFullAt = System.nanoTime();
            Api.Response turnedAway = api.get("/workers/" + other);
            long turnedAwayMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - queueFullAt);
            Api.Response refused = waiting.get(20, TimeUnit.SECONDS);
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

            assertProblem(turnedAway, 503, "requests in progress");
            assertThat(turnedAwayMs).as("the queue is full: no wait").isLessThan(1000);
            assertProblem(refused, 503, "requests in progress");
            assertThat(refused.at("/type").asString()).isEqualTo("/problems/overloaded");
            assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(waitedMs).as("it waited for a slot first").isGreaterThanOrEqualTo(1900);
            assertThat(registry.get("blackboard.http.requests.queued").gauge().value()).isZero();
            assertThat(registry.counter("blackboard.http.requests.shed").count()).isEqualTo(shedBefore + 2);
            assertThat(api.get("/actuator/health").status()).as("probes still answer").isEqualTo(200);
            assertThat(api.post("/blackboard/job", Map.of("workerId", other)).status())
                    .as("polls are bounded by the parked-poll cap instead").isEqualTo(200);
            assertThat(first).isNotDone();
            lock.rollback();
        }
        assertThat(first.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(second.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
        awaitZero("blackboard.http.requests.active");
        assertThat(api.get("/workers/" + other).status()).as("slots are given back").isEqualTo(200);
    }

    @Test
    void aBodyPastTheBytesInProgressIs503BeforeItIsReadWhileBodilessRequestsStillRun() throws Exception {
        UUID stuck = registerWorker("stuck");
        UUID other = registerWorker("other");
        Map<String, Object> bigPing = Map.of("activeJobIds", unknownJobIds(18)); // about 700 bytes
        Map<String, Object> smallPing = Map.of("activeJobIds", unknownJobIds(9)); // about 350 bytes
        String seenBefore = lastSeen(other);
        CompletableFuture<Api.Response> big;
        try (Connection lock = lockWorkerRow(stuck)) {
            big = CompletableFuture.supplyAsync(() -> api.post("/workers/" + stuck + "/ping", bigPing));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (registry.get("blackboard.http.requests.body.bytes").gauge().value() < 600) {
                assertThat(System.nanoTime()).as("the big body is in progress").isLessThan(deadline);
                Thread.sleep(10);
            }

            Api.Response refused = api.post("/workers/" + other + "/ping", smallPing);

            assertProblem(refused, 503, "bytes of request bodies");
            assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(lastSeen(other)).as("nothing was done").isEqualTo(seenBefore);
            assertThat(api.get("/workers/" + other).status()).as("a bodiless request still runs").isEqualTo(200);
            assertThat(big).isNotDone();
            lock.rollback();
        }
        assertThat(big.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
        awaitZero("blackboard.http.requests.body.bytes");
        assertThat(api.getText("/actuator/prometheus").raw()).contains(
                "blackboard_http_requests_body_bytes{application=\"blackboard\"} 0.0",
                "blackboard_http_requests_queued{application=\"blackboard\"} 0.0",
                "blackboard_http_requests_active{");
        assertThat(api.post("/workers/" + other + "/ping", smallPing).status()).as("the bytes are given back")
                .isEqualTo(200);
        awaitZero("blackboard.http.requests.body.bytes"); // that ping's bytes come back just after its answer
        Map<String, Object> alone = Map.of("activeJobIds", unknownJobIds(40)); // about 1,500 bytes
        assertThat(api.post("/workers/" + other + "/ping", alone).status())
                .as("one body alone always fits, even past the bound").isEqualTo(200);
    }

    /**
     * The filter gives a request's slot and bytes back after the chain returns, which can be just
     * after the client has read the answer: the gauge must reach zero soon, not at that instant.
     */
    private void awaitZero(String gauge) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (registry.get(gauge).gauge().value() != 0) {
            assertThat(System.nanoTime()).as(gauge + " back to zero").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    /** Holds the worker's row lock until the connection rolls back: its pings wait. */
    private Connection lockWorkerRow(UUID worker) throws SQLException {
        Connection lock = dataSource.getConnection();
        lock.setAutoCommit(false);
        try (PreparedStatement select = lock.prepareStatement("select 1 from worker where id = ? for update")) {
            select.setObject(1, worker);
            select.executeQuery().close();
        }
        return lock;
    }

    private String lastSeen(UUID worker) {
        return jdbc.sql("select last_seen_at::text from worker where id = ?").param(worker).query(String.class).single();
    }

    private static List<String> unknownJobIds(int count) {
        return Stream.generate(() -> UUID.randomUUID().toString()).limit(count).toList();
    }
}
