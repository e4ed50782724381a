package io.blackboard.worker;

import java.util.Set;

/** Liveness of a worker (seed 000). Soft deletion is a flag beside the state, never a state. */
public enum WorkerState {
    ONLINE, UNREACHABLE, OFFLINE;

    /** The transitions the liveness rules allow; the SQL in {@link WorkerStore} makes only these. */
    public boolean canTransitionTo(WorkerState next) {
        return switch (this) {
            case ONLINE -> Set.of(UNREACHABLE, OFFLINE).contains(next);
            case UNREACHABLE -> Set.of(ONLINE, OFFLINE).contains(next);
            case OFFLINE -> next == ONLINE;
        };
    }

    public static WorkerState parse(String value) {
        for (WorkerState state : values()) {
            if (state.name().equalsIgnoreCase(value)) {
                return state;
            }
        }
        throw new io.blackboard.platform.errors.BadRequest(
                "Unknown worker state '" + value + "': expected ONLINE, UNREACHABLE or OFFLINE");
    }
}
