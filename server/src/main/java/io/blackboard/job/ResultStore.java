package io.blackboard.job;

import java.time.Duration;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/** PUSHED jobs as results: read in push order for the feed, deleted past their retention. */
@Component
class ResultStore {

    /**
     * The result feed. A push becomes visible only once every transaction that could still
     * commit a smaller (push_xid, push_seq) has ended: below the snapshot's xmin. So a
     * reader that follows the cursor never skips a push that commits late.
     */
    static final String JOB_RESULTS_AFTER = "select " + JobRows.COLUMNS + """
            , j.push_xid::text as push_xid, j.push_seq
              from job j
             where j.status = 'PUSHED'
               and (j.push_xid, j.push_seq) > (cast(:xid as xid8), :seq)
               and j.push_xid < pg_snapshot_xmin(pg_current_snapshot())
             order by j.push_xid, j.push_seq
             limit :limit
            """;

    /**
     * Whether pushes after the cursor exist, asked right after {@link #JOB_RESULTS_AFTER} found
     * none it could show: they wait for a transaction older than them to end, and a reader
     * re-checks soon rather than waiting for the next push's wake-up, which the transaction that
     * makes them readable may never send. No snapshot condition here: the older transaction may
     * have ended between the two statements, and then the pushes are readable already. The next
     * push in feed order, so the look starts at the cursor in the feed's index (PostgreSQL drops
     * an ORDER BY inside EXISTS, and then may walk another index of every PUSHED job).
     */
    static final String JOB_RESULTS_PENDING = """
            select (select j.push_seq from job j
                     where j.status = 'PUSHED'
                       and (j.push_xid, j.push_seq) > (cast(:xid as xid8), :seq)
                     order by j.push_xid, j.push_seq
                     limit 1) is not null
            """;

    /**
     * One batch of the retention reaper. The batch's jobs and events are found by their ids as an
     * array ({@code = any}), each an index probe, not by joining the batch: PostgreSQL's generic
     * plan for a join cannot know the batch is small (the limit is a parameter) and hashes or
     * merges against all of {@code job_event}, even with fresh statistics, and more so once they
     * lag behind the table. BENCHMARKS.md: 840 ms a batch under load, 5.9 s with no statistics;
     * 17 ms this way.
     * The delete does not repeat the retention test: it would offer the planner the
     * {@code job_pushed_at} index, every expired job, and the rows are locked since the pick.
     */
    static final String JOB_DELETE_EXPIRED = """
            with doomed as materialized (
                select id from job
                 where status = 'PUSHED' and pushed_at < now() - :retentionMs * interval '1 millisecond'
                 order by pushed_at
                 limit :batch
                   for update skip locked),
            events as (
                delete from job_event e where e.job_id = any (array(select id from doomed))),
            gone as (
                delete from job j where j.id = any (array(select id from doomed))
                returning j.pushed_at)
            select count(*) as deleted,
                   coalesce(floor(extract(epoch from now() - min(pushed_at)) * 1000), 0)::bigint as oldest_age_ms
              from gone
            """;

    private final JdbcClient jdbc;

    ResultStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    record FeedRow(JobView job, String xid, long seq) {
    }

    List<FeedRow> resultsAfter(String xid, long seq, int limit) {
        return jdbc.sql(JOB_RESULTS_AFTER).param("xid", xid).param("seq", seq).param("limit", limit)
                .query((rs, n) -> new FeedRow(JobRows.view(rs, n), rs.getString("push_xid"), rs.getLong("push_seq")))
                .list();
    }

    boolean resultsPending(String xid, long seq) {
        return jdbc.sql(JOB_RESULTS_PENDING).param("xid", xid).param("seq", seq).query(Boolean.class).single();
    }

    /** One batch of the retention reaper: how many jobs it deleted, and how long ago the oldest was pushed. */
    record Reaped(int deleted, long oldestAgeMs) {
    }

    Reaped deleteExpired(Duration retention, int batch) {
        return jdbc.sql(JOB_DELETE_EXPIRED).param("retentionMs", retention.toMillis()).param("batch", batch)
                .query((rs, n) -> new Reaped(rs.getInt("deleted"), rs.getLong("oldest_age_ms"))).single();
    }
}
