package io.blackboard.worker;

import io.blackboard.platform.scheduling.Sweeper;
import java.time.Duration;
import java.util.Map;
import org.springframework.stereotype.Component;

/**
 * Moves silent workers down the cascade of seed 000: ONLINE -> UNREACHABLE -> OFFLINE (their
 * held jobs taken back in the same transaction) -> soft-deleted. Every step is a guarded
 * UPDATE on the database clock, so replicas running it at once change each worker once.
 */
@Component
class WorkerLivenessSweeper implements Sweeper {

    record Result(long offline, long jobsTakenBack, long unreachable, long deleted) implements Sweeper.Pass {

        @Override
        public Map<String, Long> changes() {
            return Map.of("offline", offline, "jobsTakenBack", jobsTakenBack, "unreachable", unreachable,
                    "deleted", deleted);
        }
    }

    private final WorkerService workers;
    private final WorkerProperties properties;

    WorkerLivenessSweeper(WorkerService workers, WorkerProperties properties) {
        this.workers = workers;
        this.properties = properties;
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
        WorkerService.Offline batch;
        do {
            batch = workers.markSilentOffline();
            offline += batch.workers();
            jobs += batch.jobs();
        } while (batch.workers() == WorkerService.BATCH);
        int unreachable = workers.markSilentUnreachable();
        // each step logs what it changed; HeldJobs logs each job it took
        int deleted = workers.deleteOffline(properties.offlineDeleteThreshold(), Actor.SWEEPER, null);
        return new Result(offline, jobs, unreachable, deleted);
    }
}
