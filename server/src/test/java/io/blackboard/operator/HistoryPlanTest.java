package io.blackboard.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.IntegrationTest;
import io.blackboard.QueryPlan;
import io.blackboard.platform.sql.SqlArrays;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The history at a million jobs and two million events over a week (a claim and a result each; a
 * job created PENDING has no CREATED row): rolling up an hour reads that hour of {@code job_event}
 * as a range of {@code job_event_at} (plus a look-up per claim and per result on the job's own
 * events, and per claim on the job's primary key for its creation), that hour of jobs on the job table's time
 * indexes, and no table whole; the charts' week reads the rollup's primary keys. PostgreSQL's
 * own choice of plan, with fresh statistics, run under EXPLAIN ANALYZE.
 */
class HistoryPlanTest extends IntegrationTest {

    private static final int JOBS = 1_000_000;
    private static final int BLOCKS = 20;

    @Autowired
    DataSource dataSource;

    @Test
    void theRollupOfAnHourReadsThatHourByIndexesAtAMillionJobs() throws Exception {
        jdbc.sql("truncate history_minute cascade").update();
        UUID worker = registerWorker("w");
        List<Map<String, Object>> blocks = new ArrayList<>();
        for (int b = 0; b < BLOCKS; b++) {
            blocks.add(block("block" + b, "1.0.0"));
        }
        List<UUID> ids = registerBlocks(worker, blocks);
        OffsetDateTime start = OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
        seed(ids, worker, start);
        ConsoleFleet.seedHistory(jdbc); // the function blocks are the 20 registered above

        OffsetDateTime first = start.plusDays(3);
        MapSqlParameterSource stretch = new MapSqlParameterSource().addValue("first", first)
                .addValue("last", first.plusMinutes(59)).addValue("snapshot", first.plusMinutes(59));
        QueryPlan rollUp = QueryPlan.analyze(dataSource, HistoryStore.HISTORY_ROLL_UP, stretch);
        // counting the workers by state reads every worker (a few thousand rows): the planner may scan them
        assertThat(rollUp.seqScans()).as(rollUp.toString()).isSubsetOf(List.of("worker"));
        assertThat(rollUp.probes()).as(rollUp.toString()).contains("job_event_at", "job_event_by_job",
                "job_event_claimed_once", "job_pkey", "job_created", "job_pushed_at");
        long tablePages = jdbc.sql("select relpages from pg_class where relname = 'job_event'")
                .query(Long.class).single();
        // an hour is 1/168 of the week: the range of the index and the rows it points at are a small part of it
        assertThat(rollUp.buffersOf("job_event_at")).as(rollUp.toString()).isLessThan(tablePages / 10);
        System.out.printf("history rollup of an hour at %,d jobs: %,d buffers on job_event_at (job_event: %,d pages),"
                + " %s ms%n", JOBS, rollUp.buffersOf("job_event_at"), tablePages,
                rollUp.json().findValue("Execution Time"));

        QueryPlan generic = QueryPlan.generic(dataSource, HistoryStore.HISTORY_ROLL_UP, stretch);
        assertThat(generic.probes()).as(generic.toString()).contains("job_event_at", "job_created", "job_pushed_at");

        for (HistoryRange range : HistoryRange.values()) {
            MapSqlParameterSource params = new MapSqlParameterSource().addValue("now", null)
                    .addValue("rangeSeconds", range.span().toSeconds())
                    .addValue("bucketSeconds", range.bucket().toSeconds());
            QueryPlan buckets = QueryPlan.analyze(dataSource, HistoryStore.HISTORY_BUCKETS, params);
            QueryPlan depth = QueryPlan.analyze(dataSource, HistoryStore.HISTORY_DEPTH, params);
            // a week is nearly all of the minutes' rows the retention keeps (11,520 at most): read whole if cheaper
            List<String> whole = range == HistoryRange.WEEK ? List.of("history_minute") : List.of();
            assertThat(buckets.seqScans()).as(range + "\n" + buckets).isSubsetOf(whole);
            assertThat(depth.seqScans()).as(range + "\n" + depth).isSubsetOf(whole);
            assertThat(depth.probes()).as(range + "\n" + depth).contains("history_block_minute_pkey");
            System.out.printf("history %s: buckets %s ms, depth %s ms%n", range.label(),
                    buckets.json().findValue("Execution Time"), depth.json().findValue("Execution Time"));
        }
    }

    /**
     * A week of jobs, one every 0.6 s across the blocks: each created, claimed a second later and
     * pushed two seconds after that (one in twenty a FAILURE), with its three events; the last
     * hundred are left PENDING and the hundred before them POLLED.
     */
    private void seed(List<UUID> blocks, UUID worker, OffsetDateTime start) {
        jdbc.sql("""
                insert into job (id, function_block_id, type, status, attempt, worker_id, created_at, polled_at,
                                 deadline, pushed_at, outcome, failure_reason, push_xid, push_seq)
                select gen_random_uuid(), (cast(:blocks as uuid[]))[1 + n % :blockCount], 'EXECUTE',
                       case when n > :jobs - 100 then 'PENDING' when n > :jobs - 200 then 'POLLED' else 'PUSHED' end,
                       case when n > :jobs - 100 then 0 else 1 end,
                       case when n <= :jobs - 100 then cast(:worker as uuid) end,
                       c.at, case when n <= :jobs - 100 then c.at + interval '1 second' end,
                       case when n > :jobs - 200 and n <= :jobs - 100 then c.at + interval '1 hour' end,
                       case when n <= :jobs - 200 then c.at + interval '3 seconds' end,
                       case when n > :jobs - 200 then null when n % 20 = 0 then 'FAILURE' else 'SUCCESS' end,
                       case when n <= :jobs - 200 and n % 20 = 0 then 'WORKER_REPORTED' end,
                       case when n <= :jobs - 200 then pg_current_xact_id() end,
                       case when n <= :jobs - 200 then n end
                  from generate_series(1, :jobs) n,
                       lateral (select cast(:start as timestamptz) + n * interval '600 milliseconds' as at) c
                """).param("blocks", SqlArrays.uuids(blocks)).param("blockCount", blocks.size())
                .param("worker", worker).param("start", start).param("jobs", JOBS).update();
        jdbc.sql("""
                insert into job_event (job_id, kind, attempt, worker_id, actor, detail, at)
                select j.id, e.kind, e.attempt, j.worker_id, 'seed', e.detail, e.at
                  from (select * from job order by created_at) j
                  cross join lateral (values ('CLAIMED', 1, null, j.polled_at),
                                             ('PUSHED', 1, j.outcome, j.pushed_at)) e (kind, attempt, detail, at)
                 where e.at is not null
                """).update();
        jdbc.sql("analyze job, job_event").update();
    }
}
