package io.blackboard.platform.sql;

import io.blackboard.platform.scheduling.Sweeper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Keeps PostgreSQL's picture of the queue tables current where a stale one costs most: a table
 * recorded (nearly) empty that fills again. A job table emptied by the retention on a quiet
 * night, or by an operator, and vacuumed so, is planned as holding one row; the plans every
 * pooled connection keeps for its prepared statements then read far more than they need as
 * the morning's jobs arrive (a ping's check for held jobs read the whole job table), until the
 * next ANALYZE. Autovacuum runs one once 50 rows and a tenth of the recorded count have changed,
 * but on its own cadence (a minute by default; never, if it is off). This sweeper runs it within
 * {@link #INTERVAL} of a table holding more than twice the rows recorded and a thousand more, or
 * taking more than twice the pages recorded and a few more ({@link StatisticsStore#GROWN}),
 * which a table of steady size never does: it leaves the rest to autovacuum. An ANALYZE also
 * makes every connection plan the table's statements anew, so plans made on the empty table go.
 *
 * <p>Every replica runs it; the one that takes the advisory lock analyzes, the others skip. An
 * ANALYZE that meets a vacuum of its table gives up at once and leaves it to the next pass.
 */
@Component
class PlannerStatistics implements Sweeper {

    static final Duration INTERVAL = Duration.ofSeconds(5);
    /** Well below PostgreSQL's deadlock_timeout (1 s), after which a waiting lock cancels autovacuum. */
    static final long LOCK_TIMEOUT_MS = 100;

    record Result(List<String> analyzed) implements Sweeper.Pass {

        @Override
        public Map<String, Long> changes() {
            return Map.of("analyzed", (long) analyzed.size());
        }
    }

    private final StatisticsStore store;
    private final TransactionTemplate tx;

    PlannerStatistics(StatisticsStore store, TransactionTemplate tx) {
        this.store = store;
        this.tx = tx;
    }

    @Override
    public String name() {
        return "planner-statistics";
    }

    @Override
    public Duration interval() {
        return INTERVAL;
    }

    @Override
    public Result runOnce() {
        List<String> analyzed = new ArrayList<>();
        for (String table : store.grown()) {
            try {
                if (Boolean.TRUE.equals(tx.execute(status -> store.tryLock() && analyze(table)))) {
                    analyzed.add(table);
                }
            } catch (DataAccessException e) {
                if (!StatisticsStore.isLockTimeout(e)) {
                    throw e;
                }
                // a vacuum of the table holds it: it analyzes too, or the next pass does
            }
        }
        return new Result(analyzed);
    }

    private boolean analyze(String table) {
        store.analyze(table, LOCK_TIMEOUT_MS);
        return true;
    }
}
