package io.blackboard.job;

import jakarta.validation.constraints.Size;
import java.util.UUID;

/**
 * Which jobs one bulk cancel ends: every job not yet ended that matches all the given filters
 * (at least one). {@code status} is PENDING (scheduled jobs included) or POLLED.
 */
record CancelRequest(@Size(min = 1, max = 200) String correlationId, UUID functionBlockId, UUID workerId,
        String status) {
}
