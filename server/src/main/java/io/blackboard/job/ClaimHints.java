package io.blackboard.job;

import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Component;

/**
 * Where this replica's last claims of each function block ended, so the next claim starts there
 * instead of at the front of the PENDING index. A claimed job leaves a dead entry at the front of
 * that index until a vacuum removes it, and a claim that starts at the front walks every one of
 * them: up to 1,700 buffers a claim before the next vacuum (BENCHMARKS.md). Starting after the
 * last claimed job skips them.
 * <p>A hint is a shortcut, never a rule: jobs behind it are still found. Jobs can be there when
 * they went back to PENDING (re-queued or released: this replica forgets the block's hints, and
 * other replicas' hints age out), when a claim that locked them rolled back, or when a create
 * that began before the hint's job committed after it. So a claim that finds fewer jobs than it
 * asked for runs again from the front ({@link ClaimService}), and a hint is used for at most
 * {@link #MAX_AGE_NANOS} after it was first set: a job behind it waits at most that long in a busy
 * queue. Keyed by block and the claiming worker's labels, since a worker passes over jobs whose
 * selector its labels do not hold, which other workers may still claim.
 */
@Component
class ClaimHints {

    /** How long a hint is used before a claim starts from the front again. */
    static final long MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Bound on remembered hints (blocks x distinct label sets); past it, all are forgotten. */
    static final int MAX_HINTS = 10_000;

    /** The claim order's key of the last job claimed: priority descending, then created_at, then id. */
    record Hint(int priority, OffsetDateTime createdAt, UUID id, long since) {

        boolean isBefore(Hint other) {
            if (priority != other.priority) {
                return priority > other.priority;
            }
            int byTime = createdAt.compareTo(other.createdAt);
            return byTime != 0 ? byTime < 0 : id.compareTo(other.id) < 0;
        }
    }

    private record Key(UUID block, String labels) {
    }

    private final Map<Key, Hint> hints = new ConcurrentHashMap<>();

    /** The hint for a claim of this block by a worker with these labels (stored JSON), or null: start at the front. */
    @Nullable Hint current(UUID block, String labels) {
        Key key = new Key(block, labels);
        Hint hint = hints.get(key);
        if (hint != null && System.nanoTime() - hint.since() > MAX_AGE_NANOS) {
            hints.remove(key, hint);
            return null;
        }
        return hint;
    }

    /** A claim took this job: later claims may start after it (a hint only moves forward until it ages out). */
    void claimed(String labels, JobView job) {
        if (hints.size() >= MAX_HINTS) {
            hints.clear();
        }
        long now = System.nanoTime();
        Hint claimed = new Hint(job.priority(), job.createdAt(), job.id(), now);
        hints.merge(new Key(job.functionBlockId(), labels), claimed, (old, fresh) -> old.isBefore(fresh)
                ? new Hint(fresh.priority(), fresh.createdAt(), fresh.id(), old.since()) : old);
    }

    /** The next claims of this block by workers with these labels start at the front. */
    void forget(UUID block, String labels) {
        hints.remove(new Key(block, labels));
    }

    /** Jobs of these blocks went back to PENDING, behind where claims got to. */
    void forgetBlocks(Iterable<UUID> blocks) {
        for (UUID block : blocks) {
            hints.keySet().removeIf(key -> key.block().equals(block));
        }
    }
}
