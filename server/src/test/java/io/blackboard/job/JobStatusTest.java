package io.blackboard.job;

import static io.blackboard.job.JobStatus.PARKED;
import static io.blackboard.job.JobStatus.PENDING;
import static io.blackboard.job.JobStatus.POLLED;
import static io.blackboard.job.JobStatus.PUSHED;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JobStatusTest {

    private static final Map<JobStatus, Set<JobStatus>> ALLOWED = Map.of(
            PENDING, Set.of(POLLED, PUSHED),   // claim; cancel
            POLLED, Set.of(PUSHED, PENDING, PARKED), // push, fail or cancel; re-queue, release or retry; park
            PARKED, Set.of(PENDING, PUSHED),   // re-run; discard or cancel
            PUSHED, Set.of());                 // final

    @Test
    void everyPairOfStatusesIsAllowedExactlyAsTheLifecycleSays() {
        for (JobStatus from : JobStatus.values()) {
            for (JobStatus to : JobStatus.values()) {
                assertThat(from.canTransitionTo(to)).as(from + " -> " + to).isEqualTo(ALLOWED.get(from).contains(to));
            }
        }
    }
}
