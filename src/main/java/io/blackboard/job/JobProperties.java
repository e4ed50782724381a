package io.blackboard.job;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.validation.annotation.Validated;

/**
 * Blackboard settings, bound from BLACKBOARD_* variables in application.yml. Plain numbers
 * are milliseconds; values like {@code 12m} or {@code 7d} work too.
 *
 * @param stuckJobTimeout a POLLED job not pushed (nor its lease extended) within this is failed
 * @param jobCheckInterval how often the stuck-job sweeper runs
 * @param jobRetention PUSHED jobs older than this are deleted
 * @param orphanGrace a claim younger than this is never released for missing from a heartbeat
 * @param maxParkedPolls long polls parked at once on this replica; past it, 429
 * @param pollRecheck how often a parked poll re-checks on its own (covers lost notifications)
 */
@Validated
@ConfigurationProperties("blackboard.job")
record JobProperties(
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration stuckJobTimeout,
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration jobCheckInterval,
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration jobRetention,
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration orphanGrace,
        @Min(0) int maxParkedPolls,
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration pollRecheck) {

    @AssertTrue(message = "durations must be positive")
    boolean isPositive() {
        return stuckJobTimeout != null && jobCheckInterval != null && jobRetention != null && orphanGrace != null
                && stuckJobTimeout.isPositive() && jobCheckInterval.isPositive() && jobRetention.isPositive()
                && !orphanGrace.isNegative() && pollRecheck != null && pollRecheck.isPositive();
    }
}
