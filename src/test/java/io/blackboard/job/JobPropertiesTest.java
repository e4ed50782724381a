package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Unset, the parked-poll cap follows the heap, so the default can never run the server out of memory. */
class ParkedPollLimitTest {

    private static final long MB = 1024 * 1024;

    @Test
    void theDefaultCapIsWhatTheHeapHolds() {
        assertThat(JobProperties.parkedPollsFor(256 * MB)).as("the Docker image's heap").isEqualTo(1024);
        assertThat(JobProperties.parkedPollsFor(512 * MB)).isEqualTo(2389);
        assertThat(JobProperties.parkedPollsFor(4096 * MB)).as("at most").isEqualTo(5000);
        assertThat(JobProperties.parkedPollsFor(48 * MB)).as("a heap too small parks none").isZero();
    }

    @Test
    void aConfiguredCapWinsAndUnsetFollowsThisJvmsHeap() {
        assertThat(properties(7).parkedPollLimit()).isEqualTo(7);
        assertThat(properties(null).parkedPollLimit())
                .isEqualTo(JobProperties.parkedPollsFor(Runtime.getRuntime().maxMemory()));
    }

    private static JobProperties properties(Integer maxParkedPolls) {
        Duration minute = Duration.ofMinutes(1);
        return new JobProperties(minute, minute, minute, minute, maxParkedPolls, minute);
    }
}
