package io.blackboard.worker;

import static io.blackboard.worker.WorkerState.OFFLINE;
import static io.blackboard.worker.WorkerState.ONLINE;
import static io.blackboard.worker.WorkerState.UNREACHABLE;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WorkerStateTest {

    /** Seed 000's diagram, plus OFFLINE straight from ONLINE (unregister, or a silence spanning a sweep). */
    private static final Map<WorkerState, Set<WorkerState>> ALLOWED = Map.of(
            ONLINE, Set.of(UNREACHABLE, OFFLINE),
            UNREACHABLE, Set.of(ONLINE, OFFLINE),
            OFFLINE, Set.of(ONLINE));

    @Test
    void everyPairOfStatesIsAllowedExactlyAsTheDiagramSays() {
        for (WorkerState from : WorkerState.values()) {
            for (WorkerState to : WorkerState.values()) {
                assertThat(from.canTransitionTo(to)).as(from + " -> " + to).isEqualTo(ALLOWED.get(from).contains(to));
            }
        }
    }
}
