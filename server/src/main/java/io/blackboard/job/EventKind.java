package io.blackboard.job;

/** What a line of a job's audit trail records: one per transition, written by the statement that makes it. */
enum EventKind {
    CREATED, CLAIMED, RELEASED, REQUEUED, PUSHED, FAILED, CANCELLED
}
