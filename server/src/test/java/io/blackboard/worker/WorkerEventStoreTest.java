package io.blackboard.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.IntegrationTest;
import io.blackboard.QueryPlan;
import io.blackboard.TestRows;
import io.blackboard.platform.sql.SqlArrays;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The history's statements against the real database: each finds its rows by index, and the
 * heartbeat of an ONLINE worker, the hot path, is the statement it was: it neither reads nor
 * writes a worker's history, and it stays a HOT update.
 */
class WorkerEventStoreTest extends IntegrationTest {

    @Autowired
    DataSource dataSource;

    @Autowired
    WorkerStore store;

    @Autowired
    TransactionTemplate tx;

    @Test
    void aPageOfOneWorkersHistoryIsARangeOfItsIndex() throws SQLException {
        UUID id = withHistories();

        QueryPlan.of(dataSource, WorkerEventStore.WORKER_EVENTS_AFTER,
                new MapSqlParameterSource("workerId", id).addValue("afterId", 10).addValue("limit", 101))
                .assertProbes("worker_event_by_worker");
    }

    @Test
    void theReaperFindsExpiredEventsByTime() throws SQLException {
        withHistories();

        QueryPlan.of(dataSource, WorkerEventStore.WORKER_EVENTS_REAP,
                new MapSqlParameterSource("retentionMs", 86_400_000L).addValue("batch", 1000))
                .assertProbes("worker_event_at");
    }

    @Test
    void theRevivalFindsItsWorkerAndItsClaimsByIndex() throws SQLException {
        withHistories();
        UUID id = registerWorker("w");
        TestRows.jobsInEveryState(jdbc, registerBlocks(id, List.of(block("echo", "1"))).getFirst(), 1000);

        QueryPlan.of(dataSource, WorkerStore.WORKER_REVIVE, new MapSqlParameterSource("id", id))
                .assertProbes("worker_pkey", "job_by_worker");
    }

    /**
     * 20,000 workers ping every 20 s: the pings that change nothing pay nothing for the history.
     * Their statements' plans touch no other table than before (worker, and job for held claims),
     * and they set only last_seen_at, which no index of worker covers, so every one is a HOT update.
     */
    @Test
    void theHeartbeatOfAnOnlineWorkerNeitherReadsNorWritesTheHistoryAndStaysHot() throws SQLException {
        withHistories();
        List<UUID> some = jdbc.sql("select id from worker order by id limit 20").query(UUID.class).list();

        for (QueryPlan plan : List.of(
                QueryPlan.of(dataSource, WorkerStore.WORKER_PING, new MapSqlParameterSource("id", some.getFirst())),
                QueryPlan.of(dataSource, WorkerStore.WORKER_PINGS,
                        new MapSqlParameterSource("ids", SqlArrays.uuids(some))))) {
            assertThat(plan.json().findValues("Relation Name")).extracting(node -> node.asString())
                    .as(plan::toString).containsOnly("worker", "job");
            assertThat(plan.json().findValues("Node Type")).extracting(node -> node.asString())
                    .as(plan::toString).doesNotContain("CTE Scan", "Seq Scan");
        }
        for (String heartbeat : List.of(WorkerStore.WORKER_PING, WorkerStore.WORKER_PINGS)) {
            Matcher set = Pattern.compile("\\bset (.*?)\\s+from ", Pattern.DOTALL).matcher(heartbeat);
            assertThat(set.find()).isTrue();
            assertThat(set.group(1)).as("what a heartbeat writes").isEqualTo("last_seen_at = now()");
        }
        List<String> indexes = jdbc.sql("select indexdef from pg_indexes where tablename = 'worker'")
                .query(String.class).list();
        assertThat(indexes).isNotEmpty().noneMatch(definition -> definition.contains("last_seen_at"));

        // and so it goes: the updates of worker this backend counted around the pings, all of them HOT
        String counts = "select n_tup_upd, n_tup_hot_upd from pg_stat_xact_user_tables where relname = 'worker'";
        List<Long> updates = tx.execute(status -> {
            List<Long> before = jdbc.sql(counts).query((rs, n) -> List.of(rs.getLong(1), rs.getLong(2))).single();
            assertThat(store.ping(some)).allMatch(java.util.Optional::isPresent);
            List<Long> after = jdbc.sql(counts).query((rs, n) -> List.of(rs.getLong(1), rs.getLong(2))).single();
            return List.of(after.get(0) - before.get(0), after.get(1) - before.get(1));
        });
        assertThat(updates).as("updates, HOT updates").containsExactly((long) some.size(), (long) some.size());
        assertThat(count("worker_event")).as("no event").isEqualTo(3000);
    }

    /** 300 workers with ten events each, and statistics; answers one of them. */
    private UUID withHistories() {
        TestRows.workers(jdbc, 300);
        jdbc.sql("""
                insert into worker_event (worker_id, kind, state, from_state, directive, actor, at)
                select w.id, case when g % 2 = 0 then 'UNREACHABLE' else 'ONLINE' end,
                       case when g % 2 = 0 then 'UNREACHABLE' else 'ONLINE' end,
                       case when g % 2 = 0 then 'ONLINE' else 'UNREACHABLE' end, 'RUN', 'sweeper',
                       now() - g * interval '1 day'
                  from worker w, generate_series(1, 10) g
                """).update();
        jdbc.sql("analyze worker_event").update();
        return jdbc.sql("select worker_id from worker_event limit 1").query(UUID.class).single();
    }
}
