package io.blackboard.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.IntegrationTest;
import io.blackboard.QueryPlan;
import io.blackboard.TestRows;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The dashboard's own query against the real database: the latest failures, newest first, as
 * the operator filters them, read from the small index of FAILURE jobs. It writes nothing.
 */
class OperatorStoreTest extends IntegrationTest {

    @Autowired
    OperatorStore store;

    @Autowired
    DataSource dataSource;

    @Test
    void theLatestFailuresAreTheNewestFailedJobsAsFiltered() {
        UUID block = blockWithJobs(3);
        jdbc.sql("update job set pushed_at = now() - random() * interval '1 hour' where status = 'PUSHED'").update();
        List<UUID> newestFirst = jdbc.sql("""
                select id from job where outcome = 'FAILURE' order by pushed_at desc, id desc
                """).query(UUID.class).list();

        assertThat(store.recentFailures(null, null, 2)).extracting(Failure::jobId)
                .containsExactlyElementsOf(newestFirst.subList(0, 2));
        assertThat(store.recentFailures("WORKER_REPORTED", block, 10)).extracting(Failure::jobId)
                .containsExactlyElementsOf(newestFirst);
        assertThat(store.recentFailures("STUCK_TIMEOUT", null, 10)).isEmpty();
        assertThat(store.recentFailures(null, UUID.randomUUID(), 10)).isEmpty();
    }

    /** The dashboard polls this: it reads the few failures, not every pushed job retention keeps. */
    @Test
    void theLatestFailuresAreReadFromTheFailureIndex() throws SQLException {
        blockWithJobs(200);

        QueryPlan.of(dataSource, OperatorStore.JOB_FAILURES_RECENT,
                new MapSqlParameterSource("reason", null).addValue("functionBlockId", null).addValue("limit", 50))
                .assertReads("job_failed");
    }

    /** The running jobs, nearest deadline first, are the few POLLED jobs on the deadline index. */
    @Test
    void theRunningJobsAreReadFromTheDeadlineIndex() throws SQLException {
        blockWithJobs(200);

        QueryPlan.of(dataSource, OperatorStore.JOB_RUNNING, new MapSqlParameterSource("limit", 50))
                .assertReads("job_deadline");
    }

    /** A block with {@code each} jobs in every state: among them {@code each} failures. */
    private UUID blockWithJobs(int each) {
        UUID worker = registerWorker("w");
        UUID block = registerBlocks(worker, List.of(block("echo", "1"))).getFirst();
        TestRows.jobsInEveryState(jdbc, block, each);
        return block;
    }
}
