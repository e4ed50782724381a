package io.blackboard.sdk;

/**
 * Thrown by {@link JobContext#throwIfCancelled()}: the job was cancelled (by the engine, taken back by the
 * server, or given up by a stopping worker). Nothing is pushed for a cancelled job, whatever the handler does.
 */
public class JobCancelledException extends BlackboardException {

    public JobCancelledException(String jobId) {
        super("job " + jobId + " was cancelled");
    }
}
