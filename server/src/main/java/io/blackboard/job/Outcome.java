package io.blackboard.job;

/** How a PUSHED job ended. */
enum Outcome {
    SUCCESS, FAILURE, CANCELLED
}
