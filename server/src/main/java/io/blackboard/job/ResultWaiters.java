package io.blackboard.job;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.stereotype.Component;

/**
 * Readers of the result feed waiting on this replica for a first result, without a database
 * connection. {@link JobSignals} wakes them when jobs become PUSHED here, once the change
 * commits, and {@link JobNotifications} when they do on another replica: the wake-ups long
 * polls use. A counter of such moments ({@link #generation()}) makes a wake-up between a
 * reader's empty read and its wait impossible to miss. {@link PollWaiters} opens and closes it
 * with the parked polls: on shutdown every reader answers at once.
 */
@Component
class ResultWaiters {

    private final AtomicLong generation = new AtomicLong();
    private final AtomicInteger waiting = new AtomicInteger();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition pushed = lock.newCondition();
    private volatile boolean open = true;

    /** Read before reading the feed; pass it to {@link #awaitAfter}. */
    long generation() {
        return generation.get();
    }

    /** Waits until results landed after {@code seen}, the timeout, or shutdown. */
    void awaitAfter(long seen, Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        waiting.incrementAndGet();
        try {
            while (open && generation.get() == seen && nanos > 0) {
                nanos = pushed.awaitNanos(nanos);
            }
        } finally {
            waiting.decrementAndGet();
            lock.unlock();
        }
    }

    /** Jobs became PUSHED. Costs an atomic increment when no reader waits. */
    void wake() {
        generation.incrementAndGet();
        if (waiting.get() > 0) {
            lock.lock();
            try {
                pushed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Readers waiting now, for tests. */
    int waiting() {
        return waiting.get();
    }

    boolean isOpen() {
        return open;
    }

    void open() {
        open = true;
    }

    /** Every waiting reader answers now; until {@link #open()}, none waits. */
    void close() {
        open = false;
        wake();
    }
}
