package io.blackboard.job;

import io.blackboard.worker.HeldJobs;
import io.blackboard.worker.WorkerLoss;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * The job side of the worker registry: what a heartbeat or a lost worker does to held jobs.
 * Runs in the caller's transaction, which it requires: the worker's change and the jobs' fate
 * commit together (see {@link HeldJobs}).
 */
@Component
class JobLeases implements HeldJobs {

    static final int BATCH = 1000;
    private static final Logger log = LoggerFactory.getLogger(JobLeases.class);

    private final JobLeaseStore store;
    private final JobProperties properties;
    private final JobSignals signals;
    private final JobMetrics metrics;

    JobLeases(JobLeaseStore store, JobProperties properties, JobSignals signals, JobMetrics metrics) {
        this.store = store;
        this.properties = properties;
        this.signals = signals;
        this.metrics = metrics;
    }

    @Override
    @Transactional(propagation = Propagation.MANDATORY)
    public int takeFrom(Collection<UUID> workerIds, WorkerLoss reason) {
        String message = reason == WorkerLoss.WORKER_DELETED ? "the worker holding the job was deleted"
                : "the worker holding the job went OFFLINE";
        FailureReason failure = FailureReason.valueOf(reason.name());
        int total = 0;
        JobLeaseStore.Failed batch;
        do {
            batch = store.failHeldBy(workerIds, reason.name(), message, BATCH);
            tookBack(failure, batch);
            total += batch.total();
        } while (batch.total() == BATCH);
        return total;
    }

    @Override
    @Transactional(propagation = Propagation.MANDATORY)
    public List<UUID> heartbeat(UUID workerId, @Nullable List<UUID> activeJobIds) {
        if (activeJobIds == null) {
            // an SDK that does not report its jobs still learns of cancellations
            return store.cancelledWhileHeld(workerId, properties.stuckJobTimeout());
        }
        Set<UUID> stop = new LinkedHashSet<>(activeJobIds);
        // an idle worker (most pings at scale) lists nothing: nothing to extend, one round trip saved
        List<UUID> extended = stop.isEmpty() ? List.of()
                : store.extendLeases(workerId, stop, properties.stuckJobTimeout());
        // listed but no longer held (failed, re-queued, cancelled, reassigned): the worker must stop it
        extended.forEach(stop::remove);
        List<UUID> released = store.releaseOrphans(workerId, activeJobIds, properties.orphanGrace());
        metrics.released(released.size());
        if (!released.isEmpty()) {
            log.info("Worker {} did not know of {} claims: released to PENDING", workerId, released.size());
            signals.pendingAgain(released);
        }
        return List.copyOf(stop);
    }

    /**
     * Gives back at once the claims of an answer that did not reach the worker, rather than after
     * the orphan grace. Its own transaction: the claim's has committed.
     */
    @Transactional
    int releaseUndelivered(UUID workerId, List<JobView> claimed) {
        return releaseUndelivered(workerId, claimed.stream().map(JobView::id).toList(),
                claimed.stream().map(JobView::attempt).toList());
    }

    /** {@link #releaseUndelivered(UUID, List)} by the claims' job ids and attempts, in that order. */
    @Transactional
    int releaseUndelivered(UUID workerId, List<UUID> jobIds, List<Integer> attempts) {
        List<UUID> released = store.releaseUndelivered(workerId, jobIds, attempts);
        metrics.undelivered(released.size());
        if (!released.isEmpty()) {
            log.info("The answer to worker {} carrying {} claims was not delivered: released to PENDING", workerId,
                    released.size());
            signals.pendingAgain(released);
        }
        return released.size();
    }

    /**
     * What follows taking jobs back from their holder, whoever took them (a lost worker here, the
     * stuck-job sweeper): wake-ups for re-queued jobs and for the result feed, the counters, and a
     * log line per job. After the taking transaction commits, where there is one.
     */
    void tookBack(FailureReason reason, JobLeaseStore.Failed batch) {
        signals.pendingAgain(batch.requeuedBlocks());
        if (batch.failed() > 0) {
            signals.pushed();
        }
        metrics.takenBack(reason, batch);
        batch.log(log, reason);
    }

    @Override
    public Duration orphanGrace() {
        return properties.orphanGrace();
    }
}
