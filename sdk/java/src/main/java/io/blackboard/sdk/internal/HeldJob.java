package io.blackboard.sdk.internal;

import io.blackboard.sdk.FunctionBlockSpec;
import io.blackboard.sdk.Job;
import io.blackboard.sdk.JobContext;
import io.blackboard.sdk.WorkerConfig;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A job the worker holds, from the moment its poll answer is parsed until its push has a final answer (or it
 * is given up): the unit of the lease ({@code activeJobIds}) and of the local concurrency bound. It is also
 * the handler's {@link JobContext}, whose progress reports go through its own {@link ProgressGate}.
 */
public final class HeldJob implements JobContext {

    private final Job job;
    private final WorkerConfig.Block block;
    private final Session session;
    private final ProgressReporter reporter;
    private final ProgressGate progress = new ProgressGate();
    private final CountDownLatch cancelled = new CountDownLatch(1);

    HeldJob(Job job, WorkerConfig.Block block, Session session, ProgressReporter reporter) {
        this.job = job;
        this.block = block;
        this.session = session;
        this.reporter = reporter;
    }

    /** Sets the cancel flag; whatever happens next, nothing is pushed for this job. */
    public void cancel() {
        cancelled.countDown();
    }

    WorkerConfig.Block block() {
        return block;
    }

    Session session() {
        return session;
    }

    @Override
    public Job job() {
        return job;
    }

    @Override
    public String functionBlockName() {
        return block == null ? null : block.spec().name();
    }

    @Override
    public String functionBlockVersion() {
        return block == null ? null : block.spec().version();
    }

    FunctionBlockSpec spec() {
        return block == null ? null : block.spec();
    }

    @Override
    public String workerId() {
        return session.workerId();
    }

    @Override
    public boolean isCancelled() {
        return cancelled.getCount() == 0;
    }

    @Override
    public boolean awaitCancellation(Duration timeout) throws InterruptedException {
        return cancelled.await(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
    }

    @Override
    public boolean progress(int percent, String message) {
        return progress.report(percent, message, this::isCancelled,
                (p, m) -> reporter != null && reporter.report(this, p, m));
    }

    @Override
    public String toString() {
        return "job " + job.id() + " (" + job.json().get("type") + ", attempt " + job.attempt() + ")";
    }
}
