package io.blackboard.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/**
 * Past BLACKBOARD_MAX_CONCURRENT_REQUESTS a request waits a little for a slot, past
 * BLACKBOARD_MAX_QUEUED_REQUESTS waiting ones it is answered at once: 503 instead of piling up.
 */
@TestPropertySource(properties = {"blackboard.load.max-concurrent-requests=2", "blackboard.load.max-queued-requests=1",
        "blackboard.load.queue-wait=2000"})
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
        try (Connection lock = dataSource.getConnection()) {
            lock.setAutoCommit(false);
            try (PreparedStatement select = lock.prepareStatement("select 1 from worker where id = ? for update")) {
                select.setObject(1, stuck);
                select.executeQuery().close();
            }
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
        assertThat(registry.get("blackboard.http.requests.active").gauge().value()).isZero();
        assertThat(api.get("/workers/" + other).status()).as("slots are given back").isEqualTo(200);
    }
}
