package io.blackboard.job;

import java.util.List;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * Claims another protocol handed to an answer that did not reach its worker (the OJS binding's
 * fetch): back to PENDING at once with their {@code RELEASED} event, counted and announced as a
 * native poll's are, rather than after their lease.
 */
@Component
public class UndeliveredClaims {

    private final JobLeases leases;

    UndeliveredClaims(JobLeases leases) {
        this.leases = leases;
    }

    /** Releases the claims still held by {@code workerId} at these attempts; answers how many went back. */
    public int release(UUID workerId, List<UUID> jobIds, List<Integer> attempts) {
        return leases.releaseUndelivered(workerId, jobIds, attempts);
    }
}
