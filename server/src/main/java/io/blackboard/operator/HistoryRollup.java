package io.blackboard.operator;

import io.blackboard.platform.scheduling.Sweeper;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Map;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Writes the console's history (V16__console_history.sql) a minute at a time: each finished
 * minute not rolled up yet, newest first, in stretches of {@link #BATCH} minutes, each stretch
 * one statement in its own transaction, and deletes what is older than {@link #RETENTION}.
 *
 * <p>Every replica runs it; the one that takes the advisory lock rolls up and the others skip
 * their pass, so the depth and worker counts are taken once, and a minute that two replicas
 * reach anyway is written once ({@code on conflict do nothing}). After a restart it catches up
 * the minutes missed, up to {@link #HORIZON} back, from the audit trail: counts and percentiles
 * come out as they would have; the snapshots of the queue depth and the workers, taken only for
 * the latest finished minute, are absent for them.
 */
@Component
class HistoryRollup implements Sweeper {

    /** Often enough that a minute's snapshot is taken within half a minute of its end. */
    static final Duration INTERVAL = Duration.ofSeconds(20);
    /** How long after its end a minute is rolled up: an event's time is its transaction's start. */
    static final Duration GRACE = Duration.ofSeconds(10);
    /** How far back a pass looks for minutes not rolled up: a day, well inside the jobs' retention. */
    static final int HORIZON = 24 * 60;
    /** Minutes per stretch: one statement reads at most an hour of the audit trail. */
    static final int BATCH = 60;
    static final Duration RETENTION = Duration.ofDays(8);

    record Result(long minutes, long deleted) implements Sweeper.Pass {

        @Override
        public Map<String, Long> changes() {
            return Map.of("rolled-up", minutes, "deleted", deleted);
        }
    }

    private final HistoryStore store;
    private final TransactionTemplate tx;

    HistoryRollup(HistoryStore store, TransactionTemplate tx) {
        this.store = store;
        this.tx = tx;
    }

    @Override
    public String name() {
        return "history-rollup";
    }

    @Override
    public Duration interval() {
        return INTERVAL;
    }

    @Override
    public Result runOnce() {
        return runOnce(null);
    }

    /** One pass as if at {@code now} (null: the database's clock). */
    Result runOnce(@Nullable OffsetDateTime now) {
        long minutes = 0;
        for (int stretch = 0; stretch <= HORIZON / BATCH; stretch++) {
            Long rolled = tx.execute(status -> rollUpNewestStretch(now));
            if (rolled == null) {
                break;
            }
            if (rolled == ANOTHER_REPLICA) {
                // it rolls up what is left and deletes: taking the lock for the delete here could
                // end its pass between two stretches and leave the rest to the next interval
                return new Result(minutes, 0);
            }
            minutes += rolled;
        }
        Long deleted = tx.execute(status -> store.tryLock() ? store.deleteExpired(now, RETENTION) : 0L);
        return new Result(minutes, deleted == null ? 0 : deleted);
    }

    /** What {@link #rollUpNewestStretch} answers when another replica holds the lock. */
    private static final long ANOTHER_REPLICA = -1;

    /** The minutes rolled up; null when there is nothing to do, {@link #ANOTHER_REPLICA} when another replica is at it. */
    @Nullable
    private Long rollUpNewestStretch(@Nullable OffsetDateTime now) {
        if (!store.tryLock()) {
            return ANOTHER_REPLICA;
        }
        HistoryStore.Stretch stretch = store.missing(now, GRACE, HORIZON, BATCH);
        if (stretch == null) {
            return null;
        }
        return store.rollUp(stretch.first(), stretch.last(), stretch.finishedLast() ? stretch.last() : null);
    }
}
