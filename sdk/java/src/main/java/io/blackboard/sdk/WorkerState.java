package io.blackboard.sdk;

/**
 * Where a {@link BlackboardWorker} is in its life. The transitions, and what each server answer does in each
 * state, are tabled in the SDK's README ("Lifecycle").
 */
public enum WorkerState {
    /** Built, not started. */
    NEW,
    /** Registering the worker and its function blocks: at start, and again after the server forgot it. */
    REGISTERING,
    /** Registered, directive RUN: pinging and polling. */
    RUNNING,
    /** Directive QUIET: pinging and finishing held jobs, not polling. RUN resumes. */
    QUIET,
    /** Stopping: no polls, held jobs finishing while the ping goes on, then release ping and unregister. */
    DRAINING,
    /** Stopped; {@link BlackboardWorker#stopReason()} says why. */
    STOPPED
}
