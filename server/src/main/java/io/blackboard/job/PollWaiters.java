package io.blackboard.job;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.context.SmartLifecycle;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Component;

/**
 * The long polls parked on this replica, by function block, oldest first. A parked poll is a
 * virtual thread waiting on its own semaphore: no database connection, no platform thread.
 * New PENDING jobs wake at most as many matching polls as there are jobs. Bounded; on
 * shutdown every parked poll, and every reader waiting on the result feed ({@link ResultWaiters}),
 * is answered at once.
 */
@Component
class PollWaiters implements SmartLifecycle {

    /** One parked poll: what it can take, and the permit that wakes it. */
    static final class Waiter {
        private final Set<UUID> functionBlocks;
        private final Map<String, String> labels;
        private final Semaphore permit = new Semaphore(0);
        private final AtomicBoolean signalled = new AtomicBoolean();

        Waiter(Set<UUID> functionBlocks, Map<String, String> labels) {
            this.functionBlocks = functionBlocks;
            this.labels = labels;
        }

        boolean accepts(@Nullable Map<String, String> selector) {
            return selector == null || labels.entrySet().containsAll(selector.entrySet());
        }

        boolean signal() {
            if (signalled.compareAndSet(false, true)) {
                permit.release();
                return true;
            }
            return false;
        }

        /** Waits for a signal or the timeout; true when signalled. */
        boolean await(Duration timeout) throws InterruptedException {
            boolean woken = permit.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS);
            signalled.set(false);
            return woken;
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<UUID, Deque<Waiter>> byBlock = new HashMap<>();
    private final AtomicLong wakeups = new AtomicLong();
    private final JobProperties properties;
    private final ResultWaiters readers;
    private int parked;
    private volatile boolean open = true;

    PollWaiters(JobProperties properties, ResultWaiters readers) {
        this.properties = properties;
        this.readers = readers;
    }

    /** Parks a poll; empty when the bound is reached or the server is shutting down. */
    @Nullable
    Waiter park(Set<UUID> functionBlocks, Map<String, String> labels) {
        lock.lock();
        try {
            if (!open || parked >= properties.parkedPollLimit()) {
                return null;
            }
            Waiter waiter = new Waiter(functionBlocks, labels);
            for (UUID block : functionBlocks) {
                byBlock.computeIfAbsent(block, b -> new ArrayDeque<>()).addLast(waiter);
            }
            parked++;
            return waiter;
        } finally {
            lock.unlock();
        }
    }

    void leave(Waiter waiter) {
        lock.lock();
        try {
            for (UUID block : waiter.functionBlocks) {
                Deque<Waiter> queue = byBlock.get(block);
                if (queue != null && queue.remove(waiter) && queue.isEmpty()) {
                    byBlock.remove(block);
                }
            }
            parked--;
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@code count} jobs of {@code functionBlock} became PENDING: wakes at most that many
     * parked polls that can take them (selector null: any poll of the block may try).
     */
    int wake(UUID functionBlock, @Nullable Map<String, String> selector, int count) {
        List<Waiter> chosen = new ArrayList<>();
        lock.lock();
        try {
            Deque<Waiter> queue = byBlock.get(functionBlock);
            if (queue == null) {
                return 0;
            }
            for (Waiter waiter : queue) {
                if (chosen.size() >= count) {
                    break;
                }
                if (!waiter.signalled.get() && waiter.accepts(selector)) {
                    chosen.add(waiter);
                }
            }
        } finally {
            lock.unlock();
        }
        int woken = 0;
        for (Waiter waiter : chosen) {
            if (waiter.signal()) {
                woken++;
            }
        }
        wakeups.addAndGet(woken);
        return woken;
    }

    /** Wakes every parked poll to re-check (notifications may have been lost). */
    void wakeAll() {
        lock.lock();
        try {
            byBlock.values().forEach(queue -> queue.forEach(Waiter::signal));
        } finally {
            lock.unlock();
        }
    }

    boolean isOpen() {
        return open;
    }

    int parked() {
        lock.lock();
        try {
            return parked;
        } finally {
            lock.unlock();
        }
    }

    /** How many parked polls have been woken by new jobs since start. */
    long wakeups() {
        return wakeups.get();
    }

    @Override
    public void start() {
        open = true;
        readers.open();
    }

    /** Runs before the web server's graceful shutdown: every parked poll answers now. */
    @Override
    public void stop() {
        open = false;
        wakeAll();
        readers.close();
    }

    @Override
    public boolean isRunning() {
        return open;
    }
}
