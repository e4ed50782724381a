package io.blackboard.job;

/** What the worker runs: the function block's acquire(), run() or rollback(). */
enum JobType {
    ACQUIRE, EXECUTE, ROLLBACK
}
