package io.blackboard.sdk;

import java.time.Duration;
import java.util.Map;

/**
 * What a handler knows about the job it runs, and its cancel flag. The flag is set when the server lists the
 * job in a ping's {@code cancelJobIds} (the engine cancelled it, or it is no longer this worker's), when the
 * server forgot the worker, and when a stopping worker gives up jobs still running after its drain timeout.
 * Once it is set nothing is pushed for the job: return (or throw) as soon as you can.
 */
public interface JobContext {

    /** The whole job as claimed: payload, priority, correlationId, deadline, ... */
    Job job();

    default String jobId() {
        return job().id();
    }

    /** The claim's attempt: 1 for the first run, higher when the server re-queued the job. */
    default int attempt() {
        return job().attempt();
    }

    default JobType type() {
        return job().type();
    }

    /** The job's payload when it is a JSON object (the usual case), else an empty map. */
    default Map<String, Object> params() {
        return job().params();
    }

    String functionBlockName();

    String functionBlockVersion();

    /** The id of the worker that holds the job. */
    String workerId();

    boolean isCancelled();

    /**
     * Waits until the job is cancelled or the timeout passes, whichever is first; answers whether it was
     * cancelled. Handy as an interruptible sleep: {@code if (ctx.awaitCancellation(step)) return ...}.
     */
    boolean awaitCancellation(Duration timeout) throws InterruptedException;

    /** Throws {@link JobCancelledException} if the job was cancelled. */
    default void throwIfCancelled() {
        if (isCancelled()) {
            throw new JobCancelledException(jobId());
        }
    }
}
