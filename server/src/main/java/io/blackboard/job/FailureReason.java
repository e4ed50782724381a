package io.blackboard.job;

/** Why a job ended in FAILURE. */
public enum FailureReason {
    /** The worker pushed FAILURE. */
    WORKER_REPORTED,
    /** No push before the deadline. */
    STUCK_TIMEOUT,
    /** Still running when its execution timeout (per job or function block) ran out, leases extended or not. */
    EXECUTION_TIMEOUT,
    /** The worker holding it went OFFLINE. */
    WORKER_OFFLINE,
    /** The worker holding it was deleted. */
    WORKER_DELETED
}
