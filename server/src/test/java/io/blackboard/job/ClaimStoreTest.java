package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.blackboard.QueryPlan;
import io.blackboard.RowLock;
import io.blackboard.TestRows;
import io.blackboard.platform.sql.SqlArrays;
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
 * The claim against the real database: a job is claimed once, a job another transaction holds
 * is passed over without waiting, the worker's concurrency bounds what it takes, and the claim
 * finds its jobs on the PENDING index.
 */
class ClaimStoreTest extends BlackboardTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(10);

    @Autowired
    ClaimStore store;

    @Autowired
    DataSource dataSource;

    @Test
    void aClaimedJobIsNotClaimedAgainByAnyone() {
        workerServingEcho(Map.of("concurrency", 5));
        UUID other = worker("other", Map.of(), List.of(block("echo", "1.0.0")));
        UUID job = createJob(echo, Map.of());
        assertThat(claimBy(worker, 1)).extracting(JobView::id).containsExactly(job);
        String claimed = row(job);

        assertThat(claimBy(worker, 1)).isEmpty();
        assertThat(claimBy(other, 1)).isEmpty();
        assertThat(row(job)).isEqualTo(claimed);
        assertThat(events("CLAIMED")).isEqualTo(1);
    }

    @Test
    void aClaimPassesOverAJobAnotherTransactionHoldsWithoutWaiting() throws SQLException {
        workerServingEcho(Map.of("concurrency", 2));
        List<UUID> jobs = createJobs(echo, 2);

        try (RowLock lock = RowLock.hold(dataSource, "job", jobs.getFirst())) {
            List<JobView> claimed = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> claimBy(worker, 2));
            assertThat(claimed).extracting(JobView::id).containsExactly(jobs.getLast());
        }
        assertThat(status(jobs.getFirst())).isEqualTo("PENDING");
        assertThat(claimBy(worker, 2)).extracting(JobView::id).containsExactly(jobs.getFirst());
    }

    @Test
    void aWorkerAtItsConcurrencyClaimsNothingMore() {
        workerServingEcho(Map.of("concurrency", 2));
        createJobs(echo, 3);
        assertThat(claimBy(worker, 1)).hasSize(1);

        assertThat(claimBy(worker, 3)).as("one slot left").hasSize(1);
        assertThat(claimBy(worker, 3)).isEmpty();
        assertThat(jdbc.sql("select count(*) from job where status = 'PENDING'").query(Long.class).single())
                .isEqualTo(1);
    }

    @Test
    void aJobWhoseSelectorTheWorkersLabelsDoNotHoldIsNotClaimed() {
        workerServingEcho(Map.of("labels", Map.of("zone", "a")));
        UUID elsewhere = createJob(echo, Map.of("selector", Map.of("zone", "b")));
        UUID here = createJob(echo, Map.of("selector", Map.of("zone", "a")));

        assertThat(claimBy(worker, 1)).extracting(JobView::id).containsExactly(here);
        assertThat(status(elsewhere)).isEqualTo("PENDING");
    }

    @Test
    void aDeletedWorkerCannotLockItselfForAPoll() {
        workerServingEcho(Map.of());
        api.delete("/workers/" + worker);
        String deleted = TestRows.row(jdbc, "worker", worker);

        assertThat(store.lockForPoll(worker)).isEmpty();
        assertThat(TestRows.row(jdbc, "worker", worker)).isEqualTo(deleted);
    }

    /**
     * One short probe of the PENDING index per requested block, however long the queues, and
     * the worker's held jobs counted on its own index. The store writes the limit into the text.
     */
    @Test
    void theClaimProbesThePendingIndexAndCountsHeldJobsByWorker() throws SQLException {
        workerServingEcho(Map.of());
        UUID holder = TestRows.jobsInEveryState(jdbc, echo, 1000);
        MapSqlParameterSource poll = new MapSqlParameterSource("workerId", holder)
                .addValue("functionBlockIds", SqlArrays.uuids(List.of(echo))).addValue("labels", "{}")
                .addValue("concurrency", 20).addValue("timeoutMs", TIMEOUT.toMillis());

        QueryPlan.of(dataSource, ClaimStore.JOB_CLAIM.replace(":limit", "10"), poll)
                .assertProbes("job_claim", "job_by_worker");
    }

    @Test
    void thePollsWorkerLockAndAWorkersJobsAreFoundByIndex() throws SQLException {
        workerServingEcho(Map.of());
        TestRows.workers(jdbc, 500);
        UUID holder = TestRows.jobsInEveryState(jdbc, echo, 1000);

        QueryPlan.of(dataSource, ClaimStore.WORKER_POLL, new MapSqlParameterSource("workerId", worker))
                .assertProbes("worker_pkey", "worker_function_block_pkey");
        QueryPlan.of(dataSource, ClaimStore.JOB_OF_WORKER, new MapSqlParameterSource("workerId", holder)
                .addValue("status", "POLLED").addValue("limit", 100)).assertProbes("job_by_worker");
    }

    private List<JobView> claimBy(UUID workerId, int limit) {
        ClaimStore.PollingWorker polling = store.lockForPoll(workerId).orElseThrow();
        return store.claim(workerId, polling, polling.functionBlockIds(), limit, TIMEOUT);
    }

    private long events(String kind) {
        return jdbc.sql("select count(*) from job_event where kind = :kind").param("kind", kind).query(Long.class)
                .single();
    }
}
