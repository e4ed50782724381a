package io.blackboard.job;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.lang.Nullable;
import org.springframework.validation.annotation.Validated;

/**
 * Blackboard settings, bound from BLACKBOARD_* variables in application.yml. Plain numbers
 * are milliseconds; values like {@code 12m} or {@code 7d} work too.
 *
 * @param stuckJobTimeout a POLLED job not pushed (nor its lease extended) within this is failed
 * @param jobCheckInterval how often the stuck-job sweeper runs, and the retention reaper at the latest
 * @param jobRetention PUSHED jobs older than this are deleted (see {@link #reaperInterval()})
 * @param orphanGrace a claim younger than this is never released for missing from a heartbeat
 * @param maxParkedPolls long polls parked at once on this replica; past it, 429. Unset: what
 *     the heap holds (see {@link #parkedPollLimit()})
 * @param pollRecheck how often a parked poll re-checks on its own (covers lost notifications)
 * @param leaseCheckInterval how often the stuck-job sweeper runs at the latest, whatever
 *     {@code jobCheckInterval} says: OJS leases last seconds (30 s by default, as short as a
 *     few), and a lapsed one must be available again promptly. Each pass is one probe of the
 *     deadline index when nothing lapsed.
 * @param answerMargin the time kept for a poll's answer: a long poll stops waiting this long (or a
 *     fifth of its budget, if that is less) before its client's deadline ({@code
 *     Blackboard-Timeout-Ms}); without that header the client's
 *     deadline is taken to be {@code waitMs} plus this
 */
@Validated
@ConfigurationProperties("blackboard.job")
record JobProperties(
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration stuckJobTimeout,
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration jobCheckInterval,
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration jobRetention,
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration orphanGrace,
        @Nullable @Min(0) Integer maxParkedPolls,
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration pollRecheck,
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration leaseCheckInterval,
        @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration answerMargin) {

    /** How often the stuck-job sweeper runs: the job check interval or the lease check interval, the shorter. */
    Duration stuckCheckInterval() {
        return jobCheckInterval.compareTo(leaseCheckInterval) < 0 ? jobCheckInterval : leaseCheckInterval;
    }

    /** Heap a parked long poll keeps (Tomcat's request buffers, the parked stack), with headroom: BENCHMARKS.md. */
    static final long HEAP_PER_PARKED_POLL = 192 * 1024;
    /** Heap kept for everything else. */
    static final long HEAP_RESERVE = 64L * 1024 * 1024;
    static final int MOST_PARKED_POLLS = 5000;

    /**
     * The configured cap, or by default as many as the heap holds: (max heap - 64 MB) / 192 KB,
     * at most 5,000. A parked poll keeps about 100 KB; the rest is headroom for the collector.
     * 1,024 with the 256 MB heap of the Docker image.
     */
    int parkedPollLimit() {
        return maxParkedPolls != null ? maxParkedPolls : parkedPollsFor(Runtime.getRuntime().maxMemory());
    }

    static int parkedPollsFor(long maxHeap) {
        return Math.clamp((maxHeap - HEAP_RESERVE) / HEAP_PER_PARKED_POLL, 0, MOST_PARKED_POLLS);
    }

    /**
     * How often the retention reaper runs: every tenth of the retention, so PUSHED jobs stay at
     * most about 1.1 times the retention, and a short retention never lets a minute's worth of
     * jobs pile up for one big delete; every {@code jobCheckInterval} at the latest, every
     * second at the soonest.
     */
    Duration reaperInterval() {
        Duration tenth = jobRetention.dividedBy(10);
        return tenth.compareTo(jobCheckInterval) > 0 ? jobCheckInterval
                : tenth.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : tenth;
    }

    @AssertTrue(message = "durations must be positive")
    boolean isPositive() {
        return stuckJobTimeout != null && jobCheckInterval != null && jobRetention != null && orphanGrace != null
                && stuckJobTimeout.isPositive() && jobCheckInterval.isPositive() && jobRetention.isPositive()
                && !orphanGrace.isNegative() && pollRecheck != null && pollRecheck.isPositive()
                && leaseCheckInterval != null && leaseCheckInterval.isPositive()
                && answerMargin != null && !answerMargin.isNegative();
    }
}
