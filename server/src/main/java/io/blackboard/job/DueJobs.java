package io.blackboard.job;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Makes scheduled jobs (and retries waiting out their backoff) PENDING when they fall due, and
 * wakes the polls that wait for them, on this replica and, through the same notification as a
 * create, on the others. There is no sweeper ticking every second: each replica sleeps until
 * the next due time it knows of. It learns of jobs it schedules itself at once
 * ({@link #scheduled}), and of those other replicas schedule by reading the next due time again
 * every {@link #RECHECK_NANOS}: a replica that scheduled a job wakes up for it itself, so the
 * re-read only matters when that replica is gone. Replicas that wake for the same jobs do not
 * collide: the statement skips rows another holds, and what one made PENDING the other finds
 * no longer SCHEDULED.
 */
@Component
class DueJobs implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(DueJobs.class);
    /** Jobs one statement makes PENDING; more due than this run in further statements at once. */
    static final int BATCH = 1_000;
    /** How long {@link #stop} waits for a running pass to end. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(10);

    /** How often the next due time is read again without being told (jobs other replicas scheduled). */
    static final long RECHECK_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** The least wait when due jobs were there but held by others, so the loop does not spin. */
    private static final long LOCKED_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** After a failure (database away), the next try. */
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final DueJobStore store;
    private final JobSignals signals;
    private final JobMetrics metrics;
    private volatile boolean running;
    private volatile boolean told;
    private volatile Thread loop;

    DueJobs(DueJobStore store, JobSignals signals, JobMetrics metrics) {
        this.store = store;
        this.signals = signals;
        this.metrics = metrics;
    }

    /** Jobs were scheduled on this replica (committed): look at the next due time now. */
    void scheduled() {
        told = true;
        Thread current = loop;
        if (current != null) {
            LockSupport.unpark(current);
        }
    }

    /**
     * Makes every job due now PENDING and signals it; returns how many. The loop calls it; tests
     * call it to skip the wait after moving a job's time by SQL.
     */
    int makeDue() {
        int made = 0;
        List<UUID> blocks;
        do {
            blocks = store.makeDue(BATCH);
            if (!blocks.isEmpty()) {
                signals.pendingAgain(blocks); // not a transaction: the statement has committed
                metrics.due(blocks.size());
                made += blocks.size();
            }
        } while (blocks.size() == BATCH);
        if (made > 0) {
            log.debug("{} scheduled jobs fell due", made);
        }
        return made;
    }

    private void run() {
        long nextDue = System.nanoTime();
        long nextRead = nextDue;
        while (running && Thread.currentThread() == loop) {
            long now = System.nanoTime();
            if (told || now - nextDue >= 0 || now - nextRead >= 0) {
                told = false;
                try {
                    int made = makeDue();
                    Optional<Long> until = store.millisUntilNextDue();
                    now = System.nanoTime();
                    // due but not made due: another replica (or a cancel) holds the rows; look again shortly
                    long least = made == 0 ? LOCKED_NANOS : 0;
                    long at = now;
                    nextDue = until.map(ms -> at + Math.max(least, TimeUnit.MILLISECONDS.toNanos(Math.max(0, ms))))
                            .orElse(now + RECHECK_NANOS);
                    nextRead = now + RECHECK_NANOS;
                } catch (RuntimeException e) {
                    log.warn("Could not make scheduled jobs due ({}); trying again", e.toString());
                    now = System.nanoTime();
                    nextDue = now + RETRY_NANOS;
                    nextRead = nextDue;
                }
            }
            long sleep = Math.min(nextDue, nextRead) - System.nanoTime();
            if (sleep > 0 && !told) {
                LockSupport.parkNanos(this, sleep);
            }
        }
    }

    @Override
    public void start() {
        running = true;
        loop = Thread.ofVirtual().name("due-jobs").unstarted(this::run);
        loop.start();
    }

    /**
     * Stops the loop and waits (at most {@link #STOP_WAIT}) for a pass it is running to end: no
     * pass of this loop starts or runs after it returns. A pass skips rows other transactions hold,
     * so it never waits on them.
     */
    @Override
    public void stop() {
        running = false;
        Thread current = loop;
        loop = null;
        if (current != null) {
            LockSupport.unpark(current);
            try {
                current.join(STOP_WAIT);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
