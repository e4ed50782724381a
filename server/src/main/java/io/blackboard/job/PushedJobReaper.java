package io.blackboard.job;

import io.blackboard.platform.scheduling.Sweeper;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Deletes PUSHED jobs (and their events) older than the retention, in small batches, each
 * committed on its own: short locks, small WAL bursts.
 *
 * <p>Paced, because deleting history is maintenance and must not starve requests. Jobs expire
 * at the rate they were pushed a retention ago, and every pass finds an interval's worth of
 * them: a minute's worth with the default retention, or a burst's worth after a busy spell.
 * Deleted at full speed, that takes a whole core of PostgreSQL for seconds, and the pings and
 * polls beside it queue for the CPU (BENCHMARKS.md: the ping tail). So after each full batch
 * the pass waits up to four times as long as the batch took: on time, it uses about a fifth
 * of one connection. The further the oldest expired job is past its retention, the shorter the
 * wait, down to none at {@link #TOLERATED_LAG} intervals behind: a sustained push rate faster
 * than the paced reaper holds the lag where the reaper keeps up, instead of growing the table
 * without bound. A pass with a lasting backlog ends after ten intervals, so that its counts
 * reach the log and the metrics; the next one goes on an interval later, on a scheduler thread
 * of its own (the other sweepers never wait for it).
 */
@Component
class PushedJobReaper implements Sweeper {

    static final int BATCH = 500;
    /** On time, the pass waits this many times as long as each batch took. */
    static final int PAUSE_PER_BATCH_TIME = 4;
    /** Intervals past the retention at which the pass stops waiting. */
    static final int TOLERATED_LAG = 10;
    /** Intervals after which a pass with a lasting backlog ends, so its counts reach the log and metrics. */
    static final int LONGEST_PASS = 10;
    private static final Logger log = LoggerFactory.getLogger(PushedJobReaper.class);

    record Result(long deleted) implements Sweeper.Pass {

        @Override
        public Map<String, Long> changes() {
            return Map.of("deleted", deleted);
        }
    }

    /** Waits between batches (0: not at all); false to end the pass: interrupted, or out of time. */
    @FunctionalInterface
    interface Pacer {
        boolean pause(long nanos);
    }

    private final ResultStore store;
    private final JobProperties properties;

    PushedJobReaper(ResultStore store, JobProperties properties) {
        this.store = store;
        this.properties = properties;
    }

    @Override
    public String name() {
        return "pushed-job-reaper";
    }

    @Override
    public Duration interval() {
        return properties.reaperInterval();
    }

    @Override
    public Result runOnce() {
        long endBy = System.nanoTime() + interval().multipliedBy(LONGEST_PASS).toNanos();
        return runOnce(BATCH, nanos -> System.nanoTime() - endBy < 0 && sleep(nanos));
    }

    Result runOnce(int batch, Pacer pacer) {
        long retentionMs = properties.jobRetention().toMillis();
        long toleratedLagMs = interval().multipliedBy(TOLERATED_LAG).toMillis();
        int deleted = 0;
        while (true) {
            long started = System.nanoTime();
            ResultStore.Reaped reaped = store.deleteExpired(properties.jobRetention(), batch);
            deleted += reaped.deleted();
            if (reaped.deleted() < batch) {
                break;
            }
            double behind = Math.clamp((reaped.oldestAgeMs() - retentionMs) / (double) toleratedLagMs, 0, 1);
            long pause = (long) ((System.nanoTime() - started) * PAUSE_PER_BATCH_TIME * (1 - behind));
            if (!pacer.pause(pause)) {
                break;
            }
        }
        if (deleted > 0) {
            log.info("Deleted {} PUSHED jobs older than {}", deleted, properties.jobRetention());
        }
        return new Result(deleted);
    }

    private static boolean sleep(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
