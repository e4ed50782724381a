package io.blackboard.platform.sql;

import java.sql.SQLException;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/** The SQL of {@link PlannerStatistics}: which hot tables the planner believes far smaller than they are, and ANALYZE. */
@Component
class StatisticsStore {

    /** The tables every request reads by key: their plans flip when PostgreSQL believes them (nearly) empty. */
    static final List<String> TABLES = List.of("job", "worker", "worker_function_block");

    /** One replica analyzes at a time: the others skip their pass (the key is arbitrary and unique here). */
    static final long LOCK_KEY = 2_026_000_027L;

    /** Growth in pages (of 8 KB) too small to analyze for. */
    static final int SLACK_PAGES = 8;

    /**
     * The tables that hold well over twice the rows their statistics record (and a thousand
     * more), or take well over twice the pages recorded (and {@link #SLACK_PAGES} more): filled
     * since their last ANALYZE, typically from (nearly) empty. The live count is PostgreSQL's own
     * running one ({@code n_live_tup}), the pages the table's size on disk. The pages catch what
     * the rows miss: a table recorded as no pages at all is planned from its size at the moment a
     * plan is made, and a plan made while it was empty reads it whole on every execution (a
     * sequential scan costs nothing on no pages); a few hundred jobs then cost every ping a scan
     * of them, long before a thousand rows. A table whose rows come and go at a steady size is
     * never among them.
     */
    static final String GROWN = """
            select c.relname
              from pg_class c join pg_stat_user_tables s on s.relid = c.oid
             where c.relname = any (cast(:tables as text[])) and c.relnamespace = to_regnamespace(current_schema())
               and (s.n_live_tup > 2 * greatest(c.reltuples, 0) + 1000
                    or pg_relation_size(c.oid) / current_setting('block_size')::int > 2 * c.relpages + %d)
             order by c.relname
            """.formatted(SLACK_PAGES);

    private final JdbcClient jdbc;

    StatisticsStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    List<String> grown() {
        return jdbc.sql(GROWN).param("tables", TABLES.toArray(String[]::new)).query(String.class).list();
    }

    /** Whether this transaction holds the lock (released at its end); false: another replica has it. */
    boolean tryLock() {
        return Boolean.TRUE.equals(jdbc.sql("select pg_try_advisory_xact_lock(" + LOCK_KEY + ")")
                .query(Boolean.class).single());
    }

    /**
     * ANALYZE of one of {@link #TABLES} (never a name from elsewhere), giving up after
     * {@code lockTimeoutMs} if a vacuum of the table holds its lock: waiting a second would make
     * PostgreSQL cancel autovacuum's vacuum for it, and that vacuum matters more.
     */
    void analyze(String table, long lockTimeoutMs) {
        if (!TABLES.contains(table)) {
            throw new IllegalArgumentException("not a table of " + TABLES + ": " + table);
        }
        jdbc.sql("select set_config('lock_timeout', :ms, true)").param("ms", lockTimeoutMs + "ms")
                .query(String.class).single();
        jdbc.sql("analyze " + table).update();
    }

    /** Whether {@code e} is the {@code lock_timeout} of {@link #analyze} (SQLSTATE 55P03, lock_not_available). */
    static boolean isLockTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && "55P03".equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }
}
