package io.blackboard.functionblock;

import java.util.UUID;
import org.springframework.lang.Nullable;

/**
 * A catalog line: a function block and how its queue stands. {@code oldestPendingAgeMs} is
 * null when nothing is PENDING; {@code unroutable}: PENDING jobs wait that no ONLINE worker with
 * directive RUN serving the block can take (none at all, or none whose labels match a selector).
 * {@code pending} counts jobs claimable now; {@code scheduled}, the PENDING ones waiting for their
 * time (scheduled, or a retry waiting out its backoff); {@code parked}, its dead letters.
 */
public record CatalogEntry(UUID id, String name, String version, boolean pure, boolean idempotent,
        String description, long onlineWorkers, long pending, long polled, @Nullable Long oldestPendingAgeMs,
        boolean unroutable, long scheduled, long parked) {
}
