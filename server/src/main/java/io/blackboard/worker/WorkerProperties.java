package io.blackboard.worker;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.validation.annotation.Validated;

/**
 * Worker liveness settings, bound from WORKER_* variables in application.yml. Plain
 * numbers are milliseconds; values like {@code 2m} work too. {@code deafAfter}: an ONLINE
 * worker that has not polled for this long while jobs it could take wait is flagged deaf.
 * {@code eventRetention}: how long a worker's history keeps each event ({@link WorkerEventReaper}).
 */
@Validated
@ConfigurationProperties("blackboard.worker")
record WorkerProperties(
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration unreachableThreshold,
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration offlineThreshold,
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration offlineDeleteThreshold,
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration checkInterval,
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration pingInterval,
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration deafAfter,
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration eventRetention) {

    @AssertTrue(message = "thresholds must be positive and cascade: unreachable < offline")
    boolean isCascading() {
        return unreachableThreshold != null && offlineThreshold != null && offlineDeleteThreshold != null
                && checkInterval != null && pingInterval != null && deafAfter != null
                && unreachableThreshold.isPositive() && checkInterval.isPositive() && pingInterval.isPositive()
                && deafAfter.isPositive()
                && unreachableThreshold.compareTo(offlineThreshold) < 0 && offlineDeleteThreshold.isPositive();
    }

    @AssertTrue(message = "eventRetention must be positive")
    boolean isEventRetentionPositive() {
        return eventRetention != null && eventRetention.isPositive();
    }
}
