package io.blackboard.job;

/**
 * What a line of a job's audit trail records: one per transition, written by the statement that
 * makes it; a job created to run at once has its CREATED line from its row ({@link JobService#events}).
 */
enum EventKind {
    CREATED, CLAIMED, RELEASED, REQUEUED, PUSHED, FAILED, CANCELLED,
    /** A reported failure scheduled to run again under the job's retry policy. */
    RETRYING,
    /** A scheduled job (or a retry) fell due and became claimable. */
    DUE,
    /** A final reported failure its retry policy parked as a dead letter. */
    PARKED,
    /** An operator ran a dead letter again. */
    RERUN,
    /** An operator discarded a dead letter: it ended as its FAILURE. */
    DISCARDED,
    /** The worker holding the job reported its progress. */
    PROGRESS
}
