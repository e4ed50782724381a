package io.blackboard.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.IntegrationTest;
import io.blackboard.QueryPlan;
import io.blackboard.RowLock;
import io.blackboard.TestRows;
import io.blackboard.platform.sql.SqlArrays;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The worker table's writes against the real database: a write whose guard no longer holds
 * finds no row and leaves the row as it was, and the heartbeat finds its rows by index. The
 * reads are {@link WorkerDirectoryStoreTest}'s.
 */
class WorkerStoreTest extends IntegrationTest {

    private static final Duration SILENCE = Duration.ofMinutes(5);

    @Autowired
    WorkerStore store;

    @Autowired
    WorkerDirectoryStore directory;

    @Autowired
    DataSource dataSource;

    @Test
    void noWriteFindsADeletedWorkerNorChangesIt() {
        UUID id = registerWorker("w");
        assertThat(store.softDelete(id)).isTrue();
        String deleted = row(id);

        assertThat(store.softDelete(id)).as("a second delete").isFalse();
        assertThat(store.goOffline(id, Actor.WORKER)).isFalse();
        assertThat(store.setDirective(id, Directive.QUIET)).isFalse();
        assertThat(store.ping(id)).isEmpty();
        assertThat(store.revive(id)).isEmpty();
        assertThat(row(id)).as("deleted as the first delete left it").isEqualTo(deleted);
        assertThat(store.ping(UUID.randomUUID())).as("a worker never registered").isEmpty();
    }

    @Test
    void goingOfflineAgainKeepsTheFirstStateChange() {
        UUID id = registerWorker("w");
        assertThat(store.goOffline(id, Actor.WORKER)).isTrue();
        String offline = row(id);

        assertThat(store.goOffline(id, Actor.WORKER)).as("already OFFLINE: found, and nothing moves").isTrue();
        assertThat(row(id)).isEqualTo(offline);
    }

    @Test
    void aWorkerMarkedUnreachableIsNotMarkedAgainAndAnOfflineOneIsNotBroughtBack() {
        UUID silent = registerWorker("silent");
        UUID offline = registerWorker("offline");
        store.goOffline(offline, Actor.WORKER);
        silence("1 hour");

        assertThat(store.markUnreachable(SILENCE, WorkerService.BATCH)).containsExactly(silent);
        assertAgainFindsNothing(silent, () -> store.markUnreachable(SILENCE, WorkerService.BATCH));
        assertThat(directory.find(offline).orElseThrow().state()).isEqualTo(WorkerState.OFFLINE);
    }

    @Test
    void markingOfflineSkipsAWorkerAnotherTransactionHoldsAndTakesItOnceReleased() throws SQLException {
        UUID held = registerWorker("held");
        UUID free = registerWorker("free");
        silence("1 hour");

        try (RowLock lock = RowLock.hold(dataSource, "worker", held)) {
            assertThat(store.markOffline(SILENCE, 10)).containsExactly(free);
        }
        assertThat(store.markOffline(SILENCE, 10)).containsExactly(held);
        assertAgainFindsNothing(held, () -> store.markOffline(SILENCE, 10));
    }

    @Test
    void aWorkerThatPingedAfterGoingOfflineIsNotDeleted() {
        UUID back = registerWorker("back");
        UUID gone = registerWorker("gone");
        store.goOffline(back, Actor.WORKER);
        store.goOffline(gone, Actor.WORKER);
        jdbc.sql("update worker set state_changed_at = now() - interval '25 hours'").update();
        store.revive(back);

        assertThat(store.deleteOffline(Duration.ofHours(24), 10, Actor.SWEEPER, null)).containsExactly(gone);
        assertAgainFindsNothing(gone, () -> store.deleteOffline(Duration.ZERO, 10, Actor.SWEEPER, null));
        assertThat(directory.live(back)).hasValue(true);
    }

    /** Pings come from every worker every few seconds: each finds its worker, and its held jobs, by index. */
    @Test
    void aPingFindsItsWorkerAndItsClaimsByIndex() throws SQLException {
        UUID id = registerWorker("w");
        TestRows.workers(jdbc, 500);
        TestRows.jobsInEveryState(jdbc, registerBlocks(id, List.of(block("echo", "1"))).getFirst(), 1000);

        QueryPlan.of(dataSource, WorkerStore.WORKER_PING, new MapSqlParameterSource("id", id))
                .assertProbes("worker_pkey", "job_by_worker");
    }

    /**
     * Statistics taken while few jobs were held make the deadline index of POLLED jobs look like
     * the cheapest way to one worker's: a scan of every job in flight, filtered by worker, for
     * every ping. Only a query naming the deadline can be planned on that index, so the pings'
     * check cannot, even were the worker's own index not there.
     */
    @Test
    void thePingsCheckForHeldJobsCannotReadTheDeadlineIndex() throws SQLException {
        UUID id = registerWorker("w");
        UUID holder = TestRows.jobsInEveryState(jdbc, registerBlocks(id, List.of(block("echo", "1"))).getFirst(), 1000);

        for (String ping : List.of(WorkerStore.WORKER_PING, WorkerStore.WORKER_REVIVE, WorkerStore.WORKER_PINGS)) {
            QueryPlan plan = QueryPlan.without(dataSource, "job_by_worker", ping, new MapSqlParameterSource("id", holder)
                    .addValue("ids", SqlArrays.uuids(List.of(holder, id))));
            assertThat(plan.indexes()).as(plan::toString).doesNotContain("job_deadline");
        }
    }

    /**
     * The idle pings that arrive together: one statement, each worker answered in the order asked.
     * Only ONLINE workers are found: a worker to bring back is left as it is, for the revival
     * that records it.
     */
    @Test
    void pingsOfManyWorkersInOneStatementAnswerTheOnlineOnesAndLeaveTheRestAlone() {
        UUID a = registerWorker("a");
        UUID b = registerWorker("b");
        UUID offline = registerWorker("offline");
        UUID deleted = registerWorker("deleted");
        assertThat(store.softDelete(deleted)).isTrue();
        assertThat(store.goOffline(offline, Actor.WORKER)).isTrue();
        String deletedRow = row(deleted);
        String offlineRow = row(offline);

        List<Optional<WorkerStore.Heartbeat>> beats = store.ping(List.of(b, deleted, a, offline, UUID.randomUUID(), a));

        assertThat(beats).extracting(beat -> beat.map(WorkerStore.Heartbeat::state).orElse(null))
                .containsExactly(WorkerState.ONLINE, null, WorkerState.ONLINE, null, null, WorkerState.ONLINE);
        assertThat(beats.get(0).orElseThrow().serverTime()).isEqualTo(beats.get(2).orElseThrow().serverTime());
        assertThat(jdbc.sql("select count(distinct last_seen_at) from worker where id in (:a, :b)")
                .param("a", a).param("b", b).query(Long.class).single()).as("one statement's time").isEqualTo(1);
        assertThat(row(deleted)).as("a deleted worker is not touched").isEqualTo(deletedRow);
        assertThat(row(offline)).as("nor an OFFLINE one").isEqualTo(offlineRow);
    }

    @Test
    void pingsOfManyWorkersFindThemAndTheirClaimsByIndex() throws SQLException {
        UUID id = registerWorker("w");
        TestRows.workers(jdbc, 500);
        TestRows.jobsInEveryState(jdbc, registerBlocks(id, List.of(block("echo", "1"))).getFirst(), 1000);
        List<UUID> some = jdbc.sql("select id from worker order by id limit 20").query(UUID.class).list();

        QueryPlan.of(dataSource, WorkerStore.WORKER_PINGS,
                new MapSqlParameterSource("ids", SqlArrays.uuids(some)))
                .assertProbes("worker_pkey", "job_by_worker");
    }

    /** The sweep, run again, finds nothing to do and leaves the worker's row as the first run left it. */
    private void assertAgainFindsNothing(UUID id, Supplier<List<UUID>> sweep) {
        String before = row(id);
        assertThat(sweep.get()).isEmpty();
        assertThat(row(id)).isEqualTo(before);
    }

    private void silence(String interval) {
        jdbc.sql("update worker set last_seen_at = now() - cast(:interval as interval)").param("interval", interval)
                .update();
    }

    private String row(UUID id) {
        return TestRows.row(jdbc, "worker", id);
    }
}
