package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.blackboard.QueryPlan;
import io.blackboard.RowLock;
import io.blackboard.TestRows;
import io.blackboard.platform.sql.SqlArrays;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.transaction.support.TransactionTemplate;

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

    @Autowired
    TransactionTemplate tx;

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

    /**
     * Workers asking for the same blocks with the same labels claim in one statement: the jobs in
     * claim order go to them in their order, each taking what it asked for within what its
     * concurrency leaves beside the jobs it holds, and each claim is recorded with its worker.
     */
    @Test
    void workersClaimingInOneStatementTakeTheirSharesInClaimOrderEachWithinItsConcurrency() {
        workerServingEcho(Map.of("concurrency", 3));
        UUID second = worker("second", Map.of(), List.of(block("echo", "1.0.0")));
        UUID third = worker("third", Map.of(), List.of(block("echo", "1.0.0")));
        List<UUID> jobs = createJobs(echo, 9);
        assertThat(claimBy(worker, 1)).extracting(JobView::id).containsExactly(jobs.getFirst());

        List<JobView> claimed = store.claim(List.of(new ClaimStore.Claimant(worker, 4, 3),
                new ClaimStore.Claimant(second, 2, 5), new ClaimStore.Claimant(third, 10, 4)),
                List.of(echo), Collections.singletonList(null), "{}", TIMEOUT);

        assertThat(claimed).extracting(JobView::id).as("in claim order").containsExactlyElementsOf(jobs.subList(1, 9));
        assertThat(claimed).extracting(JobView::workerId).as("two left of the first's three, what the second asked, "
                + "the third's concurrency").containsExactly(worker, worker, second, second, third, third, third, third);
        assertThat(jdbc.sql("""
                select count(*) from job_event e join job j on j.id = e.job_id
                 where e.kind = 'CLAIMED' and e.worker_id = j.worker_id and e.attempt = j.attempt
                """).query(Long.class).single()).as("each claim recorded with its worker").isEqualTo(9);
        assertThat(store.claim(List.of(new ClaimStore.Claimant(second, 5, 5), new ClaimStore.Claimant(third, 5, 5)),
                List.of(echo), Collections.singletonList(null), "{}", TIMEOUT)).as("nothing left").isEmpty();
    }

    /** A worker with no slot left takes nothing and the next takes from where the one before it ended; too few jobs go to the first. */
    @Test
    void aWorkerWithoutAFreeSlotInAGroupTakesNothingAndTooFewJobsGoToTheFirst() {
        workerServingEcho(Map.of("concurrency", 1));
        UUID second = worker("second", Map.of(), List.of(block("echo", "1.0.0")));
        UUID third = worker("third", Map.of(), List.of(block("echo", "1.0.0")));
        List<UUID> jobs = createJobs(echo, 4);
        assertThat(claimBy(worker, 1)).extracting(JobView::id).containsExactly(jobs.getFirst());

        List<JobView> claimed = store.claim(List.of(new ClaimStore.Claimant(worker, 3, 1),
                new ClaimStore.Claimant(second, 2, 5), new ClaimStore.Claimant(third, 5, 5)),
                List.of(echo), Collections.singletonList(null), "{}", TIMEOUT);

        assertThat(claimed).extracting(JobView::workerId).containsExactly(second, second, third);
        assertThat(claimed).extracting(JobView::id).containsExactlyElementsOf(jobs.subList(1, 4));
    }

    @Test
    void aJobWhoseSelectorTheWorkersLabelsDoNotHoldIsNotClaimed() {
        workerServingEcho(Map.of("labels", Map.of("zone", "a")));
        UUID elsewhere = createJob(echo, Map.of("selector", Map.of("zone", "b")));
        UUID here = createJob(echo, Map.of("selector", Map.of("zone", "a")));

        assertThat(claimBy(worker, 1)).extracting(JobView::id).containsExactly(here);
        assertThat(status(elsewhere)).isEqualTo("PENDING");
    }

    /** A poll locks its worker's row; it writes it (last_polled_at) only when the poll recorded is a second old. */
    @Test
    void aPollRecordsItselfOnTheWorkersRowAtMostOnceASecond() {
        workerServingEcho(Map.of());
        poll(worker, 1);
        String recorded = rowVersion(worker);

        poll(worker, 1);
        poll(worker, 1);
        assertThat(rowVersion(worker)).as("polls within the second write no new version of the row").isEqualTo(recorded);

        jdbc.sql("update worker set last_polled_at = now() - interval '2 seconds' where id = :id").param("id", worker)
                .update();
        String aged = rowVersion(worker);
        poll(worker, 1);
        assertThat(rowVersion(worker)).isNotEqualTo(aged);
        assertThat(jdbc.sql("select last_polled_at > now() - interval '1 second' from worker where id = :id")
                .param("id", worker).query(Boolean.class).single()).isTrue();
    }

    private String rowVersion(UUID id) {
        return jdbc.sql("select xmin::text || ' ' || last_polled_at from worker where id = :id").param("id", id)
                .query(String.class).single();
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
     * Several workers' rows locked at once, as a shared push + next transaction locks them: each
     * answer is its own worker's (empty for none, the same for a worker named twice), and every
     * row stays locked until the transaction ends.
     */
    @Test
    void severalWorkersLockedAtOnceAreEachAnsweredAndHeldUntilTheTransactionEnds() throws SQLException {
        workerServingEcho(Map.of("concurrency", 3));
        UUID other = worker("other", Map.of("concurrency", 7, "labels", Map.of("site", "x")),
                List.of(block("echo", "1.0.0"), block("lint", "2.0.0")));
        UUID missing = UUID.randomUUID();

        List<String> othersLocked = tx.execute(status -> {
            List<Optional<ClaimStore.PollingWorker>> locked = store.lockForPoll(List.of(worker, missing, other, worker));
            assertThat(locked).hasSize(4);
            assertThat(locked.get(0)).hasValueSatisfying(w -> {
                assertThat(w.concurrency()).isEqualTo(3);
                assertThat(w.functionBlockIds()).containsExactly(echo);
            });
            assertThat(locked.get(1)).isEmpty();
            assertThat(locked.get(2)).hasValueSatisfying(w -> {
                assertThat(w.concurrency()).isEqualTo(7);
                assertThat(w.labels()).contains("\"site\"");
                assertThat(w.functionBlockIds()).hasSize(2);
            });
            assertThat(locked.get(3)).isEqualTo(locked.get(0));
            List<UUID> nine = List.of(missing, other, worker, missing, other, worker, missing, other, worker);
            List<Optional<ClaimStore.PollingWorker>> ofNine = store.lockForPoll(nine);
            assertThat(ofNine).as("nine, sent as sixteen (the last repeated), answered as nine").hasSize(9);
            for (int i = 0; i < 9; i += 3) {
                assertThat(ofNine.subList(i, i + 3)).containsExactly(Optional.empty(), locked.get(2), locked.get(0));
            }
            return List.of(lockedElsewhere(worker), lockedElsewhere(other));
        });

        assertThat(othersLocked).as("both rows locked while the transaction lasts").containsOnly("55P03");
        assertThat(lockedElsewhere(worker)).as("and free after it").isEqualTo("free");
    }

    /**
     * With several workers a row that another transaction holds (an unregister, an operator's
     * SQL) is skipped at once, not waited for: its answer is empty and the others are locked.
     * One worker alone waits for its row, as before (it then runs alone: ClaimService#prepare).
     */
    @Test
    void severalWorkersLockedAtOnceSkipARowHeldElsewhere() throws SQLException {
        workerServingEcho(Map.of());
        UUID other = worker("other", Map.of(), List.of(block("echo", "1.0.0")));

        try (RowLock held = RowLock.hold(dataSource, "worker", other)) {
            List<Optional<ClaimStore.PollingWorker>> locked = tx.execute(status -> {
                // waiting would fail the test after 5 s, not hang it
                jdbc.sql("select set_config('lock_timeout', '5s', true)").query(String.class).single();
                return store.lockForPoll(List.of(worker, other));
            });
            assertThat(locked.get(0)).isPresent();
            assertThat(locked.get(1)).as("held elsewhere: skipped").isEmpty();
        }
        assertThat(ClaimStore.WORKER_POLL_SKIP_LOCKED).contains("for no key update of w skip locked)");
        assertThat(ClaimStore.WORKER_POLL).doesNotContain("skip locked");
    }

    /** What another connection's attempt to lock the worker's row without waiting meets: free, or the SQL state of its refusal. */
    private String lockedElsewhere(UUID workerId) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement lock = connection.prepareStatement("select 1 from worker where id = ? for update nowait")) {
            lock.setObject(1, workerId);
            lock.executeQuery().close();
            return "free";
        } catch (SQLException e) {
            return e.getSQLState();
        }
    }

    /**
     * One short probe of the PENDING index per requested block, however long the queues, and
     * the worker's held jobs counted on its own index. The store writes the limit into the text,
     * and the poll's transaction runs the generic plan (see {@link ClaimStore#WORKER_POLL}).
     */
    @Test
    void theClaimProbesThePendingIndexAndCountsHeldJobsByWorker() throws SQLException {
        workerServingEcho(Map.of());
        UUID holder = TestRows.jobsInEveryState(jdbc, echo, 1000);

        QueryPlan.generic(dataSource, ClaimStore.JOB_CLAIM.replace(":limit", "10"), poll(holder))
                .assertProbes("job_claim", "job_by_worker");
    }

    /**
     * Nor can the count of the worker's held jobs be planned on the deadline index (a scan of every
     * job in flight, which statistics taken while few were held make look cheapest), even were the
     * worker's own index not there.
     */
    @Test
    void theClaimsCountOfHeldJobsCannotReadTheDeadlineIndex() throws SQLException {
        QueryPlan plan = claimPlanWithout("job_by_worker");
        assertThat(plan.indexes()).as(plan::toString).doesNotContain("job_deadline");
    }

    /**
     * The claim's update finds the jobs it picked by their ids, never by walking the PENDING
     * index (every claimable job of every block, which statistics taken while few jobs waited
     * make look cheapest to join on), even were the primary key not there.
     */
    @Test
    void theClaimsUpdateCannotWalkThePendingIndex() throws SQLException {
        QueryPlan plan = claimPlanWithout("job_pkey");
        assertThat(plan.conditionsOn("job_claim")).as(plan::toString).hasSizeGreaterThan(1)
                .allSatisfy(condition -> assertThat(condition).matches("^\\(+function_block_id = .*"));
    }

    /** The generic plan of a claim of a worker holding jobs, among jobs in every state, were {@code index} not there. */
    private QueryPlan claimPlanWithout(String index) throws SQLException {
        workerServingEcho(Map.of());
        UUID holder = TestRows.jobsInEveryState(jdbc, echo, 1000);
        return QueryPlan.without(dataSource, index, ClaimStore.JOB_CLAIM.replace(":limit", "10"), poll(holder));
    }

    /** A hinted claim's parameters, for {@code worker}. */
    private MapSqlParameterSource poll(UUID worker) {
        return new MapSqlParameterSource("workerIds", "{" + worker + "}").addValue("asked", "{10}")
                .addValue("concurrencies", "{20}")
                .addValue("functionBlockIds", SqlArrays.uuids(List.of(echo))).addValue("labels", "{}")
                .addValue("hintPriorities", "{0}").addValue("hintCreatedAts", "{\"2026-01-01T00:00:00Z\"}")
                .addValue("hintIds", "{" + UUID.randomUUID() + "}")
                .addValue("timeoutMs", TIMEOUT.toMillis());
    }

    @Test
    void aHintedClaimStartsAfterItsHintWhileEnoughJobsAreThere() {
        workerServingEcho(Map.of("concurrency", 10));
        List<UUID> jobs = createJobs(echo, 5);

        assertThat(claimBy(worker, 2, hintAt(jobs.get(1)))).extracting(JobView::id)
                .containsExactly(jobs.get(2), jobs.get(3));
        assertThat(status(jobs.get(0))).as("behind the hint, not read").isEqualTo("PENDING");
    }

    @Test
    void aHintedClaimThatFindsTooFewAfterItsHintReadsFromTheFrontInClaimOrder() {
        workerServingEcho(Map.of("concurrency", 10));
        List<UUID> jobs = createJobs(echo, 3);

        assertThat(claimBy(worker, 2, hintAt(jobs.get(1)))).extracting(JobView::id)
                .as("the front's jobs come first").containsExactly(jobs.get(0), jobs.get(1));
        assertThat(status(jobs.get(2))).isEqualTo("PENDING");
        assertThat(claimBy(worker, 1, hintAt(jobs.get(2)))).extracting(JobView::id)
                .as("nothing after the hint: the front").containsExactly(jobs.get(2));
        assertThat(events("CLAIMED")).isEqualTo(3);
    }

    @Test
    void higherAndLowerPrioritiesAreFoundWhereverTheHintIs() {
        workerServingEcho(Map.of("concurrency", 10));
        UUID middle = createJob(echo, Map.of("priority", 5));
        UUID hinted = createJob(echo, Map.of("priority", 5));
        UUID low = createJob(echo, Map.of("priority", 1));
        UUID high = createJob(echo, Map.of("priority", 9));

        assertThat(claimBy(worker, 2, hintAt(middle))).extracting(JobView::id).containsExactly(high, hinted);
        assertThat(claimBy(worker, 1, hintAt(hinted))).extracting(JobView::id).containsExactly(low);
        assertThat(claimBy(worker, 1, hintAt(low))).extracting(JobView::id).containsExactly(middle);
    }

    /**
     * The point of the hint: claimed jobs leave dead entries at the front of the PENDING index
     * until a vacuum, and a claim from the front reads through them; one from the hint does not.
     */
    @Test
    void aHintedClaimDoesNotReadTheDeadEntriesTheClaimsBeforeItLeft() throws SQLException {
        workerServingEcho(Map.of("concurrency", 10));
        for (int batch = 0; batch < 4; batch++) {
            createJobs(echo, 1000);
        }
        List<UUID> jobs = jdbc.sql("select id from job where function_block_id = :fb order by created_at, id")
                .param("fb", echo).query(UUID.class).list();
        UUID last = jobs.get(3799);
        jdbc.sql("""
                update job set status = 'POLLED', worker_id = :w, polled_at = now(), deadline = now(), attempt = 1
                 where id in (select id from job where function_block_id = :fb order by created_at, id limit 3800)
                """).param("w", UUID.randomUUID()).param("fb", echo).update();
        ClaimHints.Hint hint = hintAt(last);
        ClaimStore.PollingWorker polling = store.lockForPoll(worker).orElseThrow();
        MapSqlParameterSource hinted = claimParameters(polling, hint);

        long fromHint = QueryPlan.analyze(dataSource, ClaimStore.JOB_CLAIM.replace(":limit", "10"), hinted)
                .buffersOf("job_claim");
        long fromFront = QueryPlan.analyze(dataSource, ClaimStore.JOB_CLAIM.replace(":limit", "10"),
                claimParameters(polling, null)).buffersOf("job_claim");

        assertThat(fromHint).as("from the hint, against %d from the front", fromFront).isLessThan(fromFront / 4);
        assertThat(claimBy(worker, 10, hint)).extracting(JobView::id).containsExactlyElementsOf(jobs.subList(3800, 3810));
    }

    private MapSqlParameterSource claimParameters(ClaimStore.PollingWorker polling, ClaimHints.Hint hint) {
        return new MapSqlParameterSource("workerIds", "{" + worker + "}").addValue("asked", "{10}")
                .addValue("concurrencies", "{10}")
                .addValue("functionBlockIds", SqlArrays.uuids(List.of(echo)))
                .addValue("hintPriorities", SqlArrays.integers(new Integer[] {hint == null ? null : hint.priority()}))
                .addValue("hintCreatedAts", SqlArrays.timestamps(
                        new OffsetDateTime[] {hint == null ? null : hint.createdAt()}))
                .addValue("hintIds", SqlArrays.uuids(new UUID[] {hint == null ? null : hint.id()}))
                .addValue("labels", polling.labels()).addValue("timeoutMs", TIMEOUT.toMillis());
    }

    /** The poll's worker lock makes its transaction run generic plans of index probes, and only its transaction. */
    @Test
    void thePollRunsGenericPlansOfIndexProbesForItsOwnTransactionOnly() throws SQLException {
        workerServingEcho(Map.of());
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement lock = connection.prepareStatement(ClaimStore.WORKER_POLL.replace(":workerId", "?"))) {
                lock.setObject(1, worker);
                lock.executeQuery().close();
            }
            assertThat(planSettings(connection)).as("in the poll's transaction")
                    .isEqualTo("force_generic_plan, bitmap scans off, sequential scans off");
            connection.commit();
            connection.setAutoCommit(true);
            assertThat(planSettings(connection)).as("after it, on the same connection")
                    .isEqualTo("auto, bitmap scans on, sequential scans on");
        }
    }

    private static String planSettings(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("""
                        select current_setting('plan_cache_mode') || ', bitmap scans ' || current_setting('enable_bitmapscan')
                               || ', sequential scans ' || current_setting('enable_seqscan')""")) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    void thePollsWorkerLockAndAWorkersJobsAreFoundByIndex() throws SQLException {
        workerServingEcho(Map.of());
        TestRows.workers(jdbc, 500);
        UUID holder = TestRows.jobsInEveryState(jdbc, echo, 1000);

        QueryPlan.of(dataSource, ClaimStore.WORKER_POLL, new MapSqlParameterSource("workerId", worker))
                .assertProbes("worker_pkey", "worker_function_block_pkey");
        QueryPlan.of(dataSource, ClaimStore.JOB_OF_WORKER, new MapSqlParameterSource("workerId", holder)
                .addValue("status", "POLLED").addValue("limit", 100).addValue("afterPolledAt", null)
                .addValue("afterId", null)).assertProbes("job_by_worker");
    }

    private List<JobView> claimBy(UUID workerId, int limit) {
        return claimBy(workerId, limit, null);
    }

    /** A claim of the worker's one block starting at this hint (null: the front). */
    private List<JobView> claimBy(UUID workerId, int limit, ClaimHints.Hint hint) {
        ClaimStore.PollingWorker polling = store.lockForPoll(workerId).orElseThrow();
        return store.claim(workerId, polling, polling.functionBlockIds(),
                Collections.nCopies(polling.functionBlockIds().size(), hint), limit, TIMEOUT);
    }

    private ClaimHints.Hint hintAt(UUID jobId) {
        return jdbc.sql("select priority, created_at, id from job where id = :id").param("id", jobId)
                .query((rs, n) -> new ClaimHints.Hint(rs.getInt(1), rs.getObject(2, OffsetDateTime.class),
                        rs.getObject(3, UUID.class), System.nanoTime()))
                .single();
    }

    private long events(String kind) {
        return jdbc.sql("select count(*) from job_event where kind = :kind").param("kind", kind).query(Long.class)
                .single();
    }
}
