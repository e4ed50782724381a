package io.blackboard.worker;

import io.blackboard.platform.scheduling.Sweeper;
import java.time.Duration;
import java.util.Map;
import org.springframework.stereotype.Component;

/**
 * Deletes worker events older than {@code WORKER_EVENT_RETENTION} (30 days by default), in
 * bounded batches, each committed on its own.
 *
 * <p>Kept by age, not with the worker: the server never deletes a worker's row (deletion is
 * soft), and a worker that lives for months, or flaps between ONLINE and UNREACHABLE, would
 * otherwise grow its history without bound. A deleted worker's history so stays readable for the
 * retention after its deletion, and an old worker keeps its recent past. The default is longer
 * than the jobs' 7 days because there are few events (a handful per worker a day, not one per
 * ping) and an incident with a worker is often looked into weeks later. Unlike the jobs' reaper
 * it needs no pacing: an interval's worth of expired events is small.
 */
@Component
class WorkerEventReaper implements Sweeper {

    static final int BATCH = 1_000;

    record Result(long deleted) implements Sweeper.Pass {

        @Override
        public Map<String, Long> changes() {
            return Map.of("deleted", deleted);
        }
    }

    private final WorkerEventStore store;
    private final WorkerProperties properties;

    WorkerEventReaper(WorkerEventStore store, WorkerProperties properties) {
        this.store = store;
        this.properties = properties;
    }

    @Override
    public String name() {
        return "worker-event-reaper";
    }

    /** A tenth of the retention, between 1 s and the liveness check's interval. */
    @Override
    public Duration interval() {
        Duration tenth = properties.eventRetention().dividedBy(10);
        Duration atMost = properties.checkInterval();
        return tenth.compareTo(atMost) > 0 ? atMost : tenth.compareTo(Duration.ofSeconds(1)) < 0
                ? Duration.ofSeconds(1) : tenth;
    }

    @Override
    public Result runOnce() {
        long deleted = 0;
        int batch;
        do {
            batch = store.reap(properties.eventRetention(), BATCH);
            deleted += batch;
        } while (batch == BATCH);
        return new Result(deleted);
    }
}
