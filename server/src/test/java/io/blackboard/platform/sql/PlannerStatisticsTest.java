package io.blackboard.platform.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.IntegrationTest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The job table emptied and was analyzed so (a quiet night past the retention), then fills
 * again: the sweeper analyzes it within its pass, so PostgreSQL stops planning it as a table of
 * one row, and leaves alone a table that has not grown since it was analyzed.
 */
class PlannerStatisticsTest extends IntegrationTest {

    @Autowired
    PlannerStatistics statistics;

    @Autowired
    DataSource dataSource;

    UUID block;

    @BeforeEach
    void recordTheJobTableEmpty() throws Exception {
        block = registerBlocks(registerWorker("w"), List.of(block("echo", "1"))).getFirst();
        insertJobs(2000);
        awaitCounted("n_live_tup", 2000);
        counted("delete from job");
        awaitCounted("n_dead_tup", 2000);
        jdbc.sql("vacuum analyze job").update();
        jdbc.sql("analyze worker").update();
        jdbc.sql("analyze worker_function_block").update();
        assertThat(reltuples()).isZero();
    }

    @Test
    void aTableRecordedEmptyThatFilledIsAnalyzedAndOnlyThen() throws Exception {
        assertThat(statistics.runOnce().analyzed()).as("nothing changed since the ANALYZE").isEmpty();

        insertJobs(3000);
        awaitCounted("n_live_tup", 3000);
        assertThat(statistics.runOnce().analyzed()).containsExactly("job");
        assertThat(reltuples()).isEqualTo(3000);

        assertThat(statistics.runOnce().analyzed()).as("analyzed, and unchanged since").isEmpty();

        counted("delete from job");
        insertJobs(3000);
        awaitCounted("n_mod_since_analyze", 6000);
        assertThat(statistics.runOnce().analyzed()).as("rows come and go at a steady size: autovacuum's business")
                .isEmpty();
    }

    /**
     * A few hundred jobs are far from a thousand rows, but a connection that planned the ping's
     * check for held jobs while the emptied table had no pages keeps that generic plan (a scan of
     * the whole table, which cost nothing then) as the table fills, for every ping, until the
     * table's statistics change. Past twice the pages recorded and a few more, the pass analyzes
     * it, and the connection plans the check anew: an index probe.
     */
    @Test
    void aTableRecordedAsNoPagesIsAnalyzedOnceItTakesAFewLongBeforeAThousandRows() throws Exception {
        assertThat(pages()).as("the vacuum truncated the emptied table").isZero();
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("set plan_cache_mode = force_generic_plan");
            statement.execute("prepare held(uuid) as select exists (select 1 from job j where j.worker_id = $1"
                    + " and j.status = 'POLLED')");
            assertThat(plan(statement)).as("planned on the empty table").contains("Seq Scan on job");

            insertJobs(600);
            awaitCounted("n_live_tup", 600);
            assertThat(pages()).isGreaterThan(2 * 0 + StatisticsStore.SLACK_PAGES);
            assertThat(plan(statement)).as("the plan kept as the table filled").contains("Seq Scan on job");

            assertThat(statistics.runOnce().analyzed()).containsExactly("job");
            assertThat(reltuples()).isEqualTo(600);
            assertThat(plan(statement)).as("planned anew on the statistics of 600 jobs").doesNotContain("Seq Scan");
            statement.execute("deallocate held");
            statement.execute("reset plan_cache_mode");
        }

        insertJobs(StatisticsStore.SLACK_PAGES * 20);
        assertThat(statistics.runOnce().analyzed()).as("grown by less than its recorded pages and a few").isEmpty();
    }

    @Test
    void aPassSkipsWhileAnotherReplicaAnalyzes() throws Exception {
        insertJobs(3000);
        awaitCounted("n_live_tup", 3000);
        try (Connection other = dataSource.getConnection(); Statement statement = other.createStatement()) {
            other.setAutoCommit(false);
            statement.execute("select pg_advisory_xact_lock(" + StatisticsStore.LOCK_KEY + ")");
            assertThat(statistics.runOnce().analyzed()).isEmpty();
            assertThat(reltuples()).isZero();
            other.rollback();
            other.setAutoCommit(true);
        }
        assertThat(statistics.runOnce().analyzed()).containsExactly("job");
    }

    @Test
    void aPassGivesUpOnATableWhoseLockAVacuumHolds() throws Exception {
        insertJobs(3000);
        awaitCounted("n_live_tup", 3000);
        try (Connection vacuum = dataSource.getConnection(); Statement statement = vacuum.createStatement()) {
            vacuum.setAutoCommit(false);
            // the lock a VACUUM (or another ANALYZE) of the table holds while it runs
            statement.execute("lock table job in share update exclusive mode");
            long t0 = System.nanoTime();
            assertThat(statistics.runOnce().analyzed()).isEmpty();
            assertThat((System.nanoTime() - t0) / 1_000_000).as("ms waited: under deadlock_timeout")
                    .isLessThan(900);
            vacuum.rollback();
            vacuum.setAutoCommit(true);
        }
        assertThat(statistics.runOnce().analyzed()).containsExactly("job");
    }

    /** Runs {@code sql}, its changes counted in pg_stat_user_tables when this session next goes idle. */
    private void counted(String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
            statement.execute("select pg_stat_force_next_flush()");
        }
    }

    private void insertJobs(int count) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement insert = connection.prepareStatement("""
                        insert into job (id, function_block_id, type)
                        select gen_random_uuid(), ?, 'EXECUTE' from generate_series(1, ?)
                        """);
                Statement statement = connection.createStatement()) {
            insert.setObject(1, block);
            insert.setInt(2, count);
            insert.executeUpdate();
            // the counts reach pg_stat_user_tables when this session next goes idle
            statement.execute("select pg_stat_force_next_flush()");
        }
    }

    /** Until PostgreSQL's running count of job's rows ({@code n_live_tup}, {@code n_mod_since_analyze}) reaches {@code at}. */
    private void awaitCounted(String count, long at) throws InterruptedException {
        for (int i = 0; i < 150; i++) {
            Long counted = jdbc.sql("select " + count + " from pg_stat_user_tables where relname = 'job'")
                    .query(Long.class).single();
            if (counted >= at) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("job's " + count + " did not reach " + at + " within 15 s: "
                + jdbc.sql("select n_live_tup, n_dead_tup, n_mod_since_analyze from pg_stat_user_tables where relname = 'job'")
                        .query().listOfRows());
    }

    private int pages() {
        return jdbc.sql("select (pg_relation_size('job') / current_setting('block_size')::int)::int").query(Integer.class)
                .single();
    }

    /** The plan the connection of {@code statement} runs its prepared check for held jobs ({@code held}) with. */
    private static String plan(Statement statement) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (var rows = statement.executeQuery("explain execute held('" + UUID.randomUUID() + "')")) {
            while (rows.next()) {
                plan.append(rows.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }

    private long reltuples() {
        return jdbc.sql("select reltuples::bigint from pg_class where relname = 'job'").query(Long.class).single();
    }
}
