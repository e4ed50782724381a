package io.blackboard.sdk.internal;

import io.blackboard.sdk.WorkerStats;
import java.util.concurrent.atomic.AtomicLong;

/** The worker's counters, updated from its loops and handler threads. */
public final class Counters {

    final AtomicLong received = new AtomicLong();
    final AtomicLong succeeded = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong cancelled = new AtomicLong();
    final AtomicLong conflicts = new AtomicLong();
    final AtomicLong schemaViolations = new AtomicLong();
    final AtomicLong dropped = new AtomicLong();
    final AtomicLong pushRetries = new AtomicLong();
    final AtomicLong polls = new AtomicLong();
    final AtomicLong pings = new AtomicLong();
    final AtomicLong reregistrations = new AtomicLong();

    public WorkerStats snapshot() {
        return new WorkerStats(received.get(), succeeded.get(), failed.get(), cancelled.get(), conflicts.get(),
                schemaViolations.get(), dropped.get(), pushRetries.get(), polls.get(), pings.get(),
                reregistrations.get());
    }
}
