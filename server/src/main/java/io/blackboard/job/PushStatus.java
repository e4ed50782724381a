package io.blackboard.job;

/** What a worker may report. */
enum PushStatus {
    SUCCESS, FAILURE
}
