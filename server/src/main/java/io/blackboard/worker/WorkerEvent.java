package io.blackboard.worker;

import java.time.OffsetDateTime;
import java.util.UUID;
import org.springframework.lang.Nullable;

/**
 * One line of a worker's history. {@code state} and {@code directive}: the worker's after the
 * event; {@code fromState} and {@code fromDirective}: before it, set only where the event changed
 * them. {@code relatedWorkerId}: for REGISTERED the deleted worker it replaces, for REREGISTERED
 * the new worker that replaced this one. {@code actor}: worker, operator or sweeper;
 * {@code detail}: why. {@code at}: the database's time of the change.
 */
record WorkerEvent(long id, WorkerEventKind kind, WorkerState state, @Nullable WorkerState fromState,
        Directive directive, @Nullable Directive fromDirective, @Nullable UUID relatedWorkerId, String actor,
        @Nullable String detail, OffsetDateTime at) {
}
