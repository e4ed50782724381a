package io.blackboard.platform.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class SweeperSchedulerTest {

    private record Result(int offline, long deleted, String note) implements Sweeper.Pass {

        @Override
        public Map<String, Long> changes() {
            return Map.of("offline", (long) offline, "deleted", deleted);
        }
    }

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private static Sweeper sweeper(String name, Object result) {
        return sweeper(name, Duration.ofMinutes(1), () -> {
            if (result instanceof RuntimeException e) {
                throw e;
            }
            return (Sweeper.Pass) result;
        });
    }

    private static Sweeper sweeper(String name, Duration interval, Supplier<Sweeper.Pass> pass) {
        return new Sweeper() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Duration interval() {
                return interval;
            }

            @Override
            public Sweeper.Pass runOnce() {
                return pass.get();
            }
        };
    }

    @Test
    void everyPassIsTimedAndItsCountsAddedUpPerChange() {
        Sweeper sweeper = sweeper("test-sweeper", new Result(2, 3L, "ignored"));
        SweeperScheduler scheduler = new SweeperScheduler(List.of(sweeper), registry);

        scheduler.run(sweeper);
        scheduler.run(sweeper);

        assertThat(registry.get("blackboard.sweeper.runs").tags("sweeper", "test-sweeper", "outcome", "success")
                .timer().count()).isEqualTo(2);
        assertThat(registry.get("blackboard.sweeper.rows").tags("sweeper", "test-sweeper", "change", "offline")
                .counter().count()).isEqualTo(4);
        assertThat(registry.get("blackboard.sweeper.rows").tags("sweeper", "test-sweeper", "change", "deleted")
                .counter().count()).isEqualTo(6);
        assertThat(registry.find("blackboard.sweeper.rows").tag("change", "note").counter()).isNull();
    }

    @Test
    void aPassThatRunsLongDoesNotHoldUpTheOtherSweepers() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch othersRan = new CountDownLatch(3);
        Sweeper stuck = ticking("stuck", () -> await(release));
        Sweeper other = ticking("other", othersRan::countDown);
        SweeperScheduler scheduler = new SweeperScheduler(List.of(stuck, other), registry);

        scheduler.start();
        try {
            assertThat(othersRan.await(5, TimeUnit.SECONDS)).as("three passes of the other sweeper meanwhile").isTrue();
        } finally {
            release.countDown();
            scheduler.stop();
        }
        assertThat(scheduler.isRunning()).isFalse();
    }

    /** A sweeper due every 10 ms that runs {@code pass}. */
    private static Sweeper ticking(String name, Runnable pass) {
        return sweeper(name, Duration.ofMillis(10), () -> {
            pass.run();
            return Map::of;
        });
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aFailingPassIsCountedAsAnErrorAndDoesNotEscape() {
        Sweeper sweeper = sweeper("broken", new IllegalStateException("database down"));
        SweeperScheduler scheduler = new SweeperScheduler(List.of(sweeper), registry);

        scheduler.run(sweeper);

        assertThat(registry.get("blackboard.sweeper.runs").tags("sweeper", "broken", "outcome", "error")
                .timer().count()).isEqualTo(1);
    }
}
