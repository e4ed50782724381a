package io.blackboard.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SweeperSchedulerTest {

    private record Result(int offline, long deleted, String note) {
    }

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private static Sweeper sweeper(String name, Object result) {
        return new Sweeper() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Duration interval() {
                return Duration.ofMinutes(1);
            }

            @Override
            public Object runOnce() {
                if (result instanceof RuntimeException e) {
                    throw e;
                }
                return result;
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
    void aFailingPassIsCountedAsAnErrorAndDoesNotEscape() {
        Sweeper sweeper = sweeper("broken", new IllegalStateException("database down"));
        SweeperScheduler scheduler = new SweeperScheduler(List.of(sweeper), registry);

        scheduler.run(sweeper);

        assertThat(registry.get("blackboard.sweeper.runs").tags("sweeper", "broken", "outcome", "error")
                .timer().count()).isEqualTo(1);
    }
}
