package io.blackboard.job;

import io.blackboard.platform.errors.BadRequest;
import java.util.Set;

/**
 * A job's life on the blackboard (seed 001): PENDING -> POLLED -> PUSHED, and PARKED, a dead
 * letter: a job whose last reported failure its retry policy parks instead of failing.
 */
enum JobStatus {
    PENDING, POLLED, PARKED, PUSHED;

    /**
     * The transitions the statements in {@link JobStore}, {@link ClaimStore} and {@link PushStore} make: claim,
     * push, server-side failure (to PUSHED, or back to PENDING as a new attempt), release of an
     * orphaned claim, and cancel (from PENDING or POLLED). PUSHED is final.
     */
    boolean canTransitionTo(JobStatus next) {
        return switch (this) {
            case PENDING -> Set.of(POLLED, PUSHED).contains(next);
            case POLLED -> Set.of(PUSHED, PENDING, PARKED).contains(next);
            case PARKED -> Set.of(PENDING, PUSHED).contains(next);
            case PUSHED -> false;
        };
    }

    static JobStatus parse(String value) {
        for (JobStatus status : values()) {
            if (status.name().equalsIgnoreCase(value)) {
                return status;
            }
        }
        throw new BadRequest("Unknown job status '" + value + "': expected PENDING, POLLED, PARKED or PUSHED");
    }
}
