package io.blackboard.sdk;

import java.time.Duration;
import java.util.Map;

/**
 * What a handler knows about the job it runs, and its cancel flag. The flag is set when the server lists the
 * job in a ping's {@code cancelJobIds} (the engine cancelled it, or it is no longer this worker's), when the
 * server forgot the worker, and when a stopping worker gives up jobs still running after its drain timeout.
 * Once it is set nothing is pushed for the job: return (or throw) as soon as you can.
 *
 * <p>{@link #progress(int, String)} tells the server how far the job got (which also extends its lease).
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

    /**
     * Reports how far the job got: {@code percent} from 0 to 100, and optionally what it is doing (at most 200
     * characters; longer is cut). The job shows it, and it extends the job's lease as a ping would.
     *
     * <p>Answers whether the server recorded it, and never throws for that: a report within 2 s of the last
     * recorded one is skipped without a request (the server would not record it; 100 is always sent), and so is
     * one for a cancelled job; a server that is busy, unreachable or too old for progress records nothing. Blocks
     * for one request (5 s at most). When the server answers that the job is no longer this worker's claim
     * (cancelled by the engine, failed as stuck, taken back, or the job or the worker is gone), the job is
     * cancelled here, as a ping's {@code cancelJobIds} would cancel it: {@link #isCancelled()} turns true and
     * nothing will be pushed.
     *
     * <p>The default answers false without reporting anything, for contexts that have no server.
     *
     * @throws IllegalArgumentException if {@code percent} is not within 0-100
     */
    default boolean progress(int percent, String message) {
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("progress percent must be within 0-100: " + percent);
        }
        return false;
    }

    /** {@link #progress(int, String)} without a message. */
    default boolean progress(int percent) {
        return progress(percent, null);
    }

    /** Throws {@link JobCancelledException} if the job was cancelled. */
    default void throwIfCancelled() {
        if (isCancelled()) {
            throw new JobCancelledException(jobId());
        }
    }
}
