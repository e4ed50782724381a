package io.blackboard.sdk;

/** Why {@link BlackboardWorker#run()} returned. */
public enum StopReason {
    /** {@link BlackboardWorker#close()} (or {@code closeNow()}) was called. */
    CLOSED,
    /** SIGTERM or SIGINT, or the JVM shutting down, while {@code run()} handled signals. */
    SIGNAL,
    /** The operator's TERMINATE directive. */
    TERMINATED,
    /** The server forgot the worker (deleted) and {@link OnExpired#EXIT} was configured. */
    EXPIRED,
    /** A fatal error: registration refused (401, 403, a 4xx on the worker's own description) or a bug. */
    FAILED
}
