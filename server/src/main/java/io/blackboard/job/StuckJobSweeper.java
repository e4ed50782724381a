package io.blackboard.job;

import io.blackboard.platform.scheduling.Sweeper;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Fails POLLED jobs whose deadline passed ({@code EXECUTION_TIMEOUT} where the job's execution
 * timeout put it, else {@code STUCK_TIMEOUT}), or re-queues them where a retry is safe. Each batch is one guarded statement in its own transaction: a push that
 * commits first wins and the sweeper leaves that job alone.
 */
@Component
class StuckJobSweeper implements Sweeper {

    private static final Logger log = LoggerFactory.getLogger(StuckJobSweeper.class);

    record Result(long failed, long requeued) implements Sweeper.Pass {

        @Override
        public Map<String, Long> changes() {
            return Map.of("failed", failed, "requeued", requeued);
        }
    }

    private final JobLeaseStore store;
    private final JobProperties properties;
    private final TransactionTemplate tx;
    private final JobLeases leases;

    StuckJobSweeper(JobLeaseStore store, JobProperties properties, TransactionTemplate tx, JobLeases leases) {
        this.store = store;
        this.properties = properties;
        this.tx = tx;
        this.leases = leases;
    }

    @Override
    public String name() {
        return "stuck-jobs";
    }

    @Override
    public Duration interval() {
        return properties.stuckCheckInterval();
    }

    @Override
    public Result runOnce() {
        Result overrun = pass(FailureReason.EXECUTION_TIMEOUT, () -> store.failOverrun(JobLeases.BATCH));
        Result stuck = pass(FailureReason.STUCK_TIMEOUT, () -> store.failStuck(JobLeases.BATCH));
        return new Result(overrun.failed() + stuck.failed(), overrun.requeued() + stuck.requeued());
    }

    /** Batches of one failure pass until one comes back short. */
    private Result pass(FailureReason reason, Supplier<JobLeaseStore.Failed> failBatch) {
        int failed = 0;
        int requeued = 0;
        JobLeaseStore.Failed batch;
        do {
            batch = tx.execute(status -> failBatch.get());
            leases.tookBack(reason, batch);
            failed += batch.failed();
            requeued += batch.requeued();
        } while (batch.total() == JobLeases.BATCH);
        if (failed + requeued > 0) {
            log.info("Jobs past their deadline: {} failed with {}, {} re-queued as a new attempt", failed, reason,
                    requeued);
        }
        return new Result(failed, requeued);
    }
}
