package io.blackboard.job;

/** Why a job ended in FAILURE. */
public enum FailureReason {
    /** The worker pushed FAILURE. */
    WORKER_REPORTED,
    /** No push before the deadline. */
    STUCK_TIMEOUT,
    /** The worker holding it went OFFLINE. */
    WORKER_OFFLINE,
    /** The worker holding it was deleted. */
    WORKER_DELETED
}
