package io.blackboard.job;

import io.blackboard.platform.Sweeper;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** Deletes PUSHED jobs (and their events) older than the retention, in small batches. */
@Component
class PushedJobReaper implements Sweeper {

    static final int BATCH = 1000;
    private static final Logger log = LoggerFactory.getLogger(PushedJobReaper.class);

    record Result(int deleted) {
    }

    private final JobStore store;
    private final JobProperties properties;

    PushedJobReaper(JobStore store, JobProperties properties) {
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
        int deleted = 0;
        int batch;
        do {
            // each batch commits on its own (auto-commit): short locks, small WAL bursts
            batch = store.deleteExpired(properties.jobRetention(), BATCH);
            deleted += batch;
        } while (batch == BATCH);
        if (deleted > 0) {
            log.info("Deleted {} PUSHED jobs older than {}", deleted, properties.jobRetention());
        }
        return new Result(deleted);
    }
}
