package io.blackboard.worker;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.springframework.lang.Nullable;

/**
 * What the worker registry needs done to the jobs a worker holds. Declared here and
 * implemented by the job feature, so the dependency points from jobs to workers only.
 * Callers invoke it inside their own transaction, so the worker's state change and the
 * jobs' fate commit together.
 */
public interface HeldJobs {

    /** Fails (or re-queues, where allowed) every job the workers hold in POLLED. Returns how many. */
    int takeFrom(Collection<UUID> workerIds, WorkerLoss reason);

    /**
     * Applies a heartbeat's view of held jobs: extends the leases of {@code activeJobIds},
     * releases claims the worker does not know of, and returns the ids the worker must stop.
     * With {@code activeJobIds} null the worker did not report, and only cancellations are returned.
     */
    List<UUID> heartbeat(UUID workerId, @Nullable List<UUID> activeJobIds);

    /** A claim younger than this is never released for missing from a heartbeat's {@code activeJobIds}. */
    Duration orphanGrace();
}
