package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.blackboard.QueryPlan;
import io.blackboard.RowLock;
import io.blackboard.TestRows;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The results' statements against the real database: a reaper batch deletes each expired job
 * once and passes over one another transaction holds; the feed and the reaper read their indexes.
 */
class ResultStoreTest extends BlackboardTest {

    private static final Duration RETENTION = Duration.ofHours(1);

    @Autowired
    ResultStore store;

    @Autowired
    JobStore jobs;

    @Autowired
    DataSource dataSource;

    @Test
    void theReaperDeletesEachExpiredJobOnceAndPassesOverOneAnotherTransactionHolds() throws SQLException {
        workerServingEcho(Map.of());
        List<UUID> created = createJobs(echo, 3);
        created.forEach(jobs::cancel);
        UUID held = created.get(0);
        UUID recent = created.get(2);
        jdbc.sql("update job set pushed_at = now() - interval '2 hours' where id <> :recent").param("recent", recent)
                .update();

        try (RowLock lock = RowLock.hold(dataSource, "job", held)) {
            ResultStore.Reaped reaped = assertTimeoutPreemptively(Duration.ofSeconds(10),
                    () -> store.deleteExpired(RETENTION, 10));
            assertThat(reaped.deleted()).isEqualTo(1);
        }
        assertThat(store.deleteExpired(RETENTION, 10).deleted()).isEqualTo(1);
        assertThat(store.deleteExpired(RETENTION, 10)).isEqualTo(new ResultStore.Reaped(0, 0));
        assertThat(jobs.findMany(created)).extracting(JobView::id).containsExactly(recent);
        assertThat(jobs.events(held, JobStore.FIRST_EVENT, 1000)).isEmpty();
    }

    /**
     * A reader of the feed reads on from its cursor in the feed's index, not through every pushed
     * job, and so does its check for pushes it cannot see yet; the reaper picks its batch from the
     * retention index.
     */
    @Test
    void theFeedAndTheReaperReadTheirIndexes() throws SQLException {
        workerServingEcho(Map.of());
        TestRows.jobsInEveryState(jdbc, echo, 1000);
        MapSqlParameterSource cursor = new MapSqlParameterSource("xid", "0").addValue("seq", 0).addValue("limit", 100);

        QueryPlan.of(dataSource, ResultStore.JOB_RESULTS_AFTER, cursor).assertProbes("job_feed");
        QueryPlan.of(dataSource, ResultStore.JOB_RESULTS_PENDING, cursor).assertProbes("job_feed");
        QueryPlan.of(dataSource, ResultStore.JOB_DELETE_EXPIRED,
                new MapSqlParameterSource("retentionMs", RETENTION.toMillis()).addValue("batch", 500))
                .assertProbes("job_pushed_at");
    }
}
