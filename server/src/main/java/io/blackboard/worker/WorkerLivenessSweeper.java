package io.blackboard.worker;

import io.blackboard.platform.Sweeper;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Moves silent workers down the cascade of seed 000: ONLINE -> UNREACHABLE -> OFFLINE (their
 * held jobs taken back in the same transaction) -> soft-deleted. Every step is a guarded
 * UPDATE on the database clock, so replicas running it at once change each worker once.
 */
@Component
class WorkerLivenessSweeper implements Sweeper {

    private static final Logger log = LoggerFactory.getLogger(WorkerLivenessSweeper.class);

    record Result(long offline, long jobsTakenBack, long unreachable, long deleted) implements Sweeper.Pass {

        @Override
        public Map<String, Long> changes() {
            return Map.of("offline", offline, "jobsTakenBack", jobsTakenBack, "unreachable", unreachable,
                    "deleted", deleted);
        }
    }

    private record Batch(int workers, int jobs) {
    }

    private final WorkerStore store;
    private final WorkerService workers;
    private final HeldJobs heldJobs;
    private final WorkerProperties properties;
    private final TransactionTemplate tx;

    WorkerLivenessSweeper(WorkerStore store, WorkerService workers, HeldJobs heldJobs, WorkerProperties properties,
            TransactionTemplate tx) {
        this.store = store;
        this.workers = workers;
        this.heldJobs = heldJobs;
        this.properties = properties;
        this.tx = tx;
    }

    @Override
    public String name() {
        return "worker-liveness";
    }

    @Override
    public Duration interval() {
        return properties.checkInterval();
    }

    @Override
    public Result runOnce() {
        int offline = 0;
        int jobs = 0;
        Batch batch;
        do {
            batch = tx.execute(status -> markOfflineBatch());
            offline += batch.workers();
            jobs += batch.jobs();
        } while (batch.workers() == WorkerService.BATCH);
        List<UUID> unreachable = tx.execute(status -> store.markUnreachable(properties.unreachableThreshold()));
        if (!unreachable.isEmpty()) {
            log.warn("Workers UNREACHABLE (no ping for {}; they keep their jobs): {}",
                    properties.unreachableThreshold(), unreachable);
        }
        // deleteOffline logs the deletions; HeldJobs logs each job it took
        int deleted = workers.deleteOffline(properties.offlineDeleteThreshold());
        return new Result(offline, jobs, unreachable.size(), deleted);
    }

    private Batch markOfflineBatch() {
        List<UUID> ids = store.markOffline(properties.offlineThreshold(), WorkerService.BATCH);
        int jobs = ids.isEmpty() ? 0 : heldJobs.takeFrom(ids, WorkerLoss.WORKER_OFFLINE);
        if (!ids.isEmpty()) {
            log.warn("Workers OFFLINE (no ping for {}; {} held jobs taken back): {}", properties.offlineThreshold(),
                    jobs, ids);
        }
        return new Batch(ids.size(), jobs);
    }
}
