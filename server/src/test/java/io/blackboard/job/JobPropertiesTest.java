package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The settings derived from others: the parked-poll cap and the retention reaper's interval. */
class JobPropertiesTest {

    private static final long MB = 1024 * 1024;

    /** Unset, the parked-poll cap follows the heap, so the default can never run the server out of memory. */
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

    @Test
    void theReaperRunsEveryTenthOfTheRetentionBetweenASecondAndTheCheckInterval() {
        Duration minute = Duration.ofMinutes(1);
        assertThat(reaping(Duration.ofDays(7), minute)).as("the default retention").isEqualTo(minute);
        assertThat(reaping(Duration.ofMinutes(5), minute)).isEqualTo(Duration.ofSeconds(30));
        assertThat(reaping(Duration.ofMinutes(1), minute)).isEqualTo(Duration.ofSeconds(6));
        assertThat(reaping(Duration.ofMinutes(1), Duration.ofSeconds(2))).as("never later than the check interval")
                .isEqualTo(Duration.ofSeconds(2));
        assertThat(reaping(Duration.ofMillis(500), minute)).as("at most every second").isEqualTo(Duration.ofSeconds(1));
    }

    private static Duration reaping(Duration retention, Duration checkInterval) {
        Duration minute = Duration.ofMinutes(1);
        return new JobProperties(minute, checkInterval, retention, minute, null, minute, minute, minute).reaperInterval();
    }

    private static JobProperties properties(Integer maxParkedPolls) {
        Duration minute = Duration.ofMinutes(1);
        return new JobProperties(minute, minute, minute, minute, maxParkedPolls, minute, minute, minute);
    }
}
