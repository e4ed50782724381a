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
 * The statements that take claims back, against the real database: each takes a job once,
 * leaves a job its holder pushed first or another transaction holds, and finds its jobs on
 * the deadline or the worker's index.
 */
class JobLeaseStoreTest extends BlackboardTest {

    private static final Duration GRACE = Duration.ofMinutes(1);

    @Autowired
    JobLeaseStore store;

    @Autowired
    DataSource dataSource;

    @Test
    void aStuckJobIsFailedOnceAndAJobItsHolderPushedFirstIsLeftStanding() {
        workerServingEcho(Map.of("concurrency", 2));
        List<UUID> jobs = createJobs(echo, 2);
        claim(worker, 2);
        jobs.forEach(this::expire);
        UUID stuck = jobs.getFirst();
        UUID pushedFirst = jobs.getLast();
        assertThat(push(pushedFirst, worker, Map.of()).status()).isEqualTo(200);
        String pushed = row(pushedFirst);

        assertThat(taken(store.failStuck(10))).containsExactly(stuck);
        String failed = row(stuck);

        assertThat(store.failStuck(10).jobs()).isEmpty();
        assertThat(row(stuck)).isEqualTo(failed);
        assertThat(row(pushedFirst)).isEqualTo(pushed);
        assertThat(events(stuck, "FAILED")).isEqualTo(1);
    }

    @Test
    void aJobReQueuedAsANewAttemptIsNotTakenAgain() {
        worker = registerWorker("w");
        UUID retried = registerBlocks(worker, List.of(Map.of("name", "retried", "version", "1", "idempotent", true)))
                .getFirst();
        UUID job = createJob(retried, Map.of("maxAttempts", 2));
        assertThat(claim(worker, 1)).containsExactly(job);
        expire(job);

        assertThat(store.failStuck(10).requeued()).isEqualTo(1);
        String requeued = row(job);

        assertThat(store.failStuck(10).jobs()).isEmpty();
        assertThat(store.failHeldBy(List.of(worker), FailureReason.WORKER_OFFLINE.name(), "gone", 10).jobs()).isEmpty();
        assertThat(row(job)).isEqualTo(requeued);
    }

    @Test
    void theStuckSweepPassesOverAJobAnotherTransactionHoldsWithoutWaiting() throws SQLException {
        workerServingEcho(Map.of());
        UUID job = claimedJob(echo);
        expire(job);

        try (RowLock lock = RowLock.hold(dataSource, "job", job)) {
            JobLeaseStore.Failed swept = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> store.failStuck(10));
            assertThat(swept.jobs()).isEmpty();
        }
        assertThat(status(job)).isEqualTo("POLLED");
        assertThat(taken(store.failStuck(10))).containsExactly(job);
    }

    @Test
    void aLostWorkersJobsAreFailedOnce() {
        workerServingEcho(Map.of());
        UUID job = claimedJob(echo);

        assertThat(taken(store.failHeldBy(List.of(worker), FailureReason.WORKER_OFFLINE.name(), "gone", 10)))
                .containsExactly(job);
        String failed = row(job);

        assertThat(store.failHeldBy(List.of(worker), FailureReason.WORKER_DELETED.name(), "gone", 10).jobs()).isEmpty();
        assertThat(row(job)).isEqualTo(failed);
        assertThat(events(job, "FAILED")).isEqualTo(1);
    }

    /** Several lost workers, one of them named twice: full batches of distinct jobs until all are taken. */
    @Test
    void severalLostWorkersJobsAreTakenInFullBatchesEachOnce() {
        workerServingEcho(Map.of());
        UUID first = worker("first", Map.of("concurrency", 3), List.of(block("echo", "1.0.0")));
        UUID second = worker("second", Map.of("concurrency", 3), List.of(block("echo", "1.0.0")));
        createJobs(echo, 7);
        claim(first, 3);
        claim(second, 3);
        UUID kept = claim(worker, 1).getFirst();

        List<UUID> lost = List.of(first, second, first);
        List<UUID> batch = taken(store.failHeldBy(lost, FailureReason.WORKER_OFFLINE.name(), "gone", 4));
        List<UUID> rest = taken(store.failHeldBy(lost, FailureReason.WORKER_OFFLINE.name(), "gone", 4));

        assertThat(batch).as("a full batch, no job twice").hasSize(4).doesNotHaveDuplicates();
        assertThat(rest).hasSize(2).doesNotContainAnyElementsOf(batch);
        assertThat(store.failHeldBy(lost, FailureReason.WORKER_OFFLINE.name(), "gone", 4).jobs()).isEmpty();
        assertThat(status(kept)).as("another worker's claim").isEqualTo("POLLED");
    }

    @Test
    void aLeaseIsExtendedOnlyOnAJobTheWorkerStillHoldsAndNeverShortened() {
        workerServingEcho(Map.of("concurrency", 2));
        UUID held = claimedJob(echo);
        UUID pushed = claimedJob(echo);
        assertThat(push(pushed, worker, Map.of()).status()).isEqualTo(200);
        jdbc.sql("update job set deadline = now() + interval '1 hour' where id = :id").param("id", held).update();
        String rowHeld = row(held);
        String rowPushed = row(pushed);
        UUID other = worker("other", Map.of(), List.of(block("echo", "1.0.0")));

        assertThat(store.extendLeases(worker, List.of(held, pushed), Duration.ofMinutes(1))).containsExactly(held);
        assertThat(store.extendLeases(other, List.of(held, pushed), Duration.ofHours(2))).isEmpty();
        assertThat(row(held)).as("a later deadline stands").isEqualTo(rowHeld);
        assertThat(row(pushed)).isEqualTo(rowPushed);
    }

    @Test
    void anOrphanedClaimIsReleasedOnceAndAListedOrFreshClaimIsKept() {
        workerServingEcho(Map.of("concurrency", 3));
        List<UUID> jobs = createJobs(echo, 3);
        claim(worker, 3);
        UUID orphan = jobs.get(0);
        UUID listed = jobs.get(1);
        UUID fresh = jobs.get(2);
        jdbc.sql("update job set polled_at = now() - interval '1 hour' where id <> :fresh").param("fresh", fresh)
                .update();

        assertThat(store.releaseOrphans(worker, List.of(listed), GRACE)).containsExactly(echo);
        String released = row(orphan);

        assertThat(store.releaseOrphans(worker, List.of(listed), GRACE)).isEmpty();
        assertThat(row(orphan)).isEqualTo(released);
        assertThat(job(orphan).get("status").asString()).isEqualTo("PENDING");
        assertThat(List.of(status(listed), status(fresh))).containsOnly("POLLED");
    }

    /** The stuck-job sweep reads only the POLLED jobs whose deadline passed, in deadline order. */
    @Test
    void theStuckSweepFindsItsJobsOnTheDeadlineIndex() throws SQLException {
        workerServingEcho(Map.of());
        TestRows.jobsInEveryState(jdbc, echo, 1000);

        QueryPlan.of(dataSource, JobLeaseStore.JOB_FAIL_STUCK, failure(FailureReason.STUCK_TIMEOUT))
                .assertProbes("job_deadline");
    }

    /**
     * The sweeps' and the due jobs' updates find the jobs their batch picked by id, never by a
     * second read of the index the batch was picked from (once per job, on statistics taken while
     * few such jobs existed): shown with the primary key dropped.
     */
    @Test
    void theSweepsUpdatesDoNotReadTheirBatchesIndexAgain() throws SQLException {
        workerServingEcho(Map.of());
        TestRows.jobsInEveryState(jdbc, echo, 1000);

        for (String sweep : List.of(JobLeaseStore.JOB_FAIL_STUCK, JobLeaseStore.JOB_FAIL_OVERRUN)) {
            QueryPlan plan = QueryPlan.without(dataSource, "job_pkey", sweep, failure(FailureReason.STUCK_TIMEOUT));
            assertThat(plan.conditionsOn("job_deadline")).as(plan::toString).hasSize(1);
        }
        QueryPlan due = QueryPlan.without(dataSource, "job_pkey", DueJobStore.JOB_MAKE_DUE,
                new MapSqlParameterSource("batch", 500));
        assertThat(due.conditionsOn("job_scheduled")).as(due::toString).hasSize(1);
    }

    /**
     * A ping's orphans are looked up among its worker's claims; the leases it extends, and the
     * claims of an undelivered answer, by their ids.
     */
    @Test
    void aHeartbeatFindsItsClaimsByIndex() throws SQLException {
        workerServingEcho(Map.of());
        UUID holder = TestRows.jobsInEveryState(jdbc, echo, 1000);
        MapSqlParameterSource heartbeat = new MapSqlParameterSource("workerId", holder)
                .addValue("jobIds", SqlArrays.uuids(List.of(UUID.randomUUID()))).addValue("graceMs", GRACE.toMillis())
                .addValue("timeoutMs", 600_000).addValue("actor", "heartbeat").addValue("detail", "test")
                .addValue("attempts", "{1}");

        QueryPlan.of(dataSource, JobLeaseStore.JOB_RELEASE_ORPHANS, heartbeat).assertProbes("job_by_worker");
        QueryPlan.of(dataSource, JobLeaseStore.JOB_EXTEND_LEASES, heartbeat).assertProbes("job_pkey");
        QueryPlan.of(dataSource, JobLeaseStore.JOB_RELEASE_UNDELIVERED, heartbeat).assertProbes("job_pkey");
    }

    /** Failing a lost worker's jobs looks up that worker's claims, not every job in flight. */
    @Test
    void aLostWorkersClaimsAreFoundOnTheWorkersIndex() throws SQLException {
        workerServingEcho(Map.of());
        UUID holder = TestRows.jobsInEveryState(jdbc, echo, 5000);

        QueryPlan.of(dataSource, JobLeaseStore.JOB_FAIL_HELD_BY, failure(FailureReason.WORKER_OFFLINE)
                .addValue("workerIds", SqlArrays.uuids(List.of(holder)))).assertProbes("job_by_worker");
    }

    /** The parameters of a failure pass, as the store binds them. */
    private static MapSqlParameterSource failure(FailureReason reason) {
        return new MapSqlParameterSource("batch", 500).addValue("reason", reason.name()).addValue("actor", "sweeper")
                .addValue("message", "taken back");
    }

    private static List<UUID> taken(JobLeaseStore.Failed failed) {
        return failed.jobs().stream().map(JobLeaseStore.Taken::jobId).toList();
    }

    private long events(UUID job, String kind) {
        return jdbc.sql("select count(*) from job_event where job_id = :id and kind = :kind").param("id", job)
                .param("kind", kind).query(Long.class).single();
    }
}
