package io.blackboard.worker;

/**
 * What a line of a worker's history records: one per change of its state, directive or
 * existence, written by the statement that makes it ({@link WorkerStore}). The liveness kinds
 * are named for the state the change led to.
 */
public enum WorkerEventKind {
    /** A new worker: ONLINE, directive RUN. */
    REGISTERED,
    /** Back ONLINE from UNREACHABLE or OFFLINE: a ping. */
    ONLINE,
    /** Silent past the unreachable threshold: the liveness sweeper. It keeps its jobs. */
    UNREACHABLE,
    /** Unregistered, or silent past the offline threshold; its held jobs were taken back. */
    OFFLINE,
    /** The operator's directive changed. */
    DIRECTIVE,
    /** Soft-deleted (and OFFLINE, if it was not): by an operator, a cleanup or the sweeper. */
    DELETED,
    /** This deleted worker registered again, as the new worker the event names. */
    REREGISTERED
}
