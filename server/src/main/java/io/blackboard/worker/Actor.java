package io.blackboard.worker;

import java.util.Locale;

/** Who changed a worker, as its history says ({@code worker_event.actor}). */
enum Actor {
    /** The worker's own call (registration, ping, unregister). */
    WORKER,
    /** A call with an operator's token. */
    OPERATOR,
    /** The liveness sweeper. */
    SWEEPER;

    String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
