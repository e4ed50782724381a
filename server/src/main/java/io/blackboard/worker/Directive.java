package io.blackboard.worker;

/** What an operator wants a worker to do, returned on every ping (seed 004). */
public enum Directive {
    /** Fetch and run jobs. */
    RUN,
    /** Finish held jobs, fetch no new ones. */
    QUIET,
    /** Stop: fetch nothing, give up held jobs and unregister. */
    TERMINATE
}
