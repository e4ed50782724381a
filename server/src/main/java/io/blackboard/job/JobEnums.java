package io.blackboard.job;

/** What the worker runs: the function block's acquire(), run() or rollback(). */
enum JobType {
    ACQUIRE, EXECUTE, ROLLBACK
}

/** How a PUSHED job ended. */
enum Outcome {
    SUCCESS, FAILURE, CANCELLED
}

/** What a worker may report. */
enum PushStatus {
    SUCCESS, FAILURE
}

/** Why a job ended in FAILURE. */
enum FailureReason {
    /** The worker pushed FAILURE. */
    WORKER_REPORTED,
    /** No push before the deadline. */
    STUCK_TIMEOUT,
    /** The worker holding it went OFFLINE. */
    WORKER_OFFLINE,
    /** The worker holding it was deleted. */
    WORKER_DELETED
}
