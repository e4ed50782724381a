package io.blackboard.operator;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Component;

/**
 * The console's history (V16__console_history.sql): the rollup that writes a row a minute from
 * the audit trail, the job table and the worker table, and the reads that bucket it for the
 * charts. Every statement takes {@code :now} (null: the database's clock) so tests pin time.
 */
@Component
class HistoryStore {

    /** One replica rolls up at a time: the others skip their pass (the key is arbitrary and unique here). */
    static final long LOCK_KEY = 2_026_000_026L;

    static final String HISTORY_LOCK = "select pg_try_advisory_xact_lock(" + LOCK_KEY + ")";

    /**
     * The stretch of minutes to roll up next: the newest finished minute not rolled up within the
     * horizon, and the minutes not rolled up in the {@code :batch} minutes up to it. A minute is
     * finished {@code :graceMs} after it ends, and once no transaction that has written and began
     * in it or before is still open: an event's time is its transaction's start, and a transaction
     * begun in the minute (one waiting on a lock, say) may commit long after it; a minute rolled up
     * before that commit would miss its events for good.
     */
    static final String HISTORY_MINUTES_MISSING = """
            with latest as (
                select date_trunc('minute', least(
                           coalesce(cast(:now as timestamptz), now()) - :graceMs * interval '1 millisecond',
                           coalesce((select min(xact_start) from pg_stat_activity
                                      where backend_xid is not null and pid <> pg_backend_pid()), 'infinity')))
                       - interval '1 minute' as minute),
            missing as (
                select m.minute
                  from latest, generate_series(latest.minute - :horizonMinutes * interval '1 minute', latest.minute,
                                               interval '1 minute') m (minute)
                 where not exists (select 1 from history_minute h
                                    where h.minute = m.minute
                                      and h.minute >= latest.minute - :horizonMinutes * interval '1 minute'))
            select min(minute) as first, max(minute) as last, max(minute) = (select minute from latest) as finished_last
              from missing
             where minute > (select max(minute) from missing) - :batch * interval '1 minute'
            having count(*) > 0
            """;

    /**
     * Rolls up the minutes from {@code :first} to {@code :last} not rolled up yet, in one statement:
     * a minute's row and its blocks' rows appear together or not at all, and a minute another
     * replica wrote meanwhile is left as it is ({@code on conflict do nothing}). Claims and results
     * are read by time on {@code job_event_at}; each claim looks back, on {@code job_event_by_job},
     * for the event that made its job claimable (its creation, on the job's primary key, when no event
     * did: a job created PENDING has no CREATED row), and each result for the claim of its attempt, on
     * {@code job_event_claimed_once}. Jobs created and ended come from the job table's time indexes.
     * The depth and the workers are counted now, for {@code :snapshot} (null: none), the jobs held on
     * the deadline index (which only a query naming the deadline can use; every POLLED job has one).
     */
    static final String HISTORY_ROLL_UP = """
            with minutes as (
                select m.minute
                  from generate_series(cast(:first as timestamptz), cast(:last as timestamptz), interval '1 minute') m (minute)
                 where not exists (select 1 from history_minute h
                                    where h.minute = m.minute
                                      and h.minute between cast(:first as timestamptz) and cast(:last as timestamptz))),
            claims as (
                select date_trunc('minute', c.at) as minute,
                       extract(epoch from c.at - coalesce(ready.at, created.at))::float8 * 1000 as ms
                  from job_event c
                  left join lateral (
                      select e.at from job_event e
                       where e.job_id = c.job_id and e.id < c.id
                         and e.kind in ('CREATED', 'DUE', 'REQUEUED', 'RELEASED', 'RERUN')
                       order by e.id desc
                       limit 1) ready on true
                  left join lateral (
                      select j.created_at as at from job j where j.id = c.job_id and ready.at is null) created on true
                 where c.kind = 'CLAIMED'
                   and c.at >= cast(:first as timestamptz) and c.at < cast(:last as timestamptz) + interval '1 minute'),
            runs as (
                select date_trunc('minute', r.at) as minute, extract(epoch from r.at - claim.at)::float8 * 1000 as ms
                  from job_event r
                  join lateral (
                      select c.at from job_event c
                       where c.job_id = r.job_id and c.attempt = r.attempt and c.kind = 'CLAIMED'
                       limit 1) claim on true
                 where r.kind in ('PUSHED', 'RETRYING', 'PARKED')
                   and r.at >= cast(:first as timestamptz) and r.at < cast(:last as timestamptz) + interval '1 minute'),
            claim_stats as (
                select minute, count(*) as n, percentile_cont(array[0.5, 0.95, 0.99]) within group (order by ms) as p
                  from claims group by minute),
            run_stats as (
                select minute, count(*) as n, percentile_cont(array[0.5, 0.95, 0.99]) within group (order by ms) as p
                  from runs group by minute),
            workers as (
                select count(*) filter (where state = 'ONLINE') as online,
                       count(*) filter (where state = 'UNREACHABLE') as unreachable,
                       count(*) filter (where state = 'OFFLINE') as offline
                  from worker
                 where deleted_at is null and cast(:snapshot as timestamptz) is not null),
            created as (
                select date_trunc('minute', created_at) as minute, function_block_id, count(*) as n
                  from job
                 where created_at >= cast(:first as timestamptz) and created_at < cast(:last as timestamptz) + interval '1 minute'
                 group by 1, 2),
            ended as (
                select date_trunc('minute', pushed_at) as minute, function_block_id,
                       count(*) filter (where outcome = 'SUCCESS') as succeeded,
                       count(*) filter (where outcome = 'FAILURE') as failed,
                       count(*) filter (where outcome = 'CANCELLED') as cancelled
                  from job
                 where status = 'PUSHED'
                   and pushed_at >= cast(:first as timestamptz) and pushed_at < cast(:last as timestamptz) + interval '1 minute'
                 group by 1, 2),
            rolled as (
                insert into history_minute (minute, created, succeeded, failed, cancelled, claims, claim_p50_ms,
                                            claim_p95_ms, claim_p99_ms, runs, run_p50_ms, run_p95_ms, run_p99_ms, snapshot,
                                            workers_online, workers_unreachable, workers_offline)
                select m.minute, coalesce(cr.n, 0), coalesce(e.succeeded, 0), coalesce(e.failed, 0),
                       coalesce(e.cancelled, 0), coalesce(c.n, 0), c.p[1], c.p[2], c.p[3], coalesce(r.n, 0), r.p[1],
                       r.p[2], r.p[3], s.minute is not null, s.online, s.unreachable, s.offline
                  from minutes m
                  left join (select minute, sum(n) as n from created group by minute) cr using (minute)
                  left join (select minute, sum(succeeded) as succeeded, sum(failed) as failed,
                                    sum(cancelled) as cancelled
                               from ended group by minute) e using (minute)
                  left join claim_stats c using (minute)
                  left join run_stats r using (minute)
                  left join (select cast(:snapshot as timestamptz) as minute, * from workers) s using (minute)
                on conflict (minute) do nothing
                returning minute, snapshot),
            pending as (
                select function_block_id, count(*) as n from job
                 where status = 'PENDING' and cast(:snapshot as timestamptz) is not null group by 1),
            polled as (
                select function_block_id, count(*) as n from job
                 where status = 'POLLED' and deadline is not null and cast(:snapshot as timestamptz) is not null
                 group by 1),
            depth as (
                select cast(:snapshot as timestamptz) as minute, function_block_id,
                       coalesce(pending.n, 0) as pending, coalesce(polled.n, 0) as polled
                  from pending full join polled using (function_block_id)),
            blocks as (
                insert into history_block_minute (minute, function_block_id, created, succeeded, failed, cancelled,
                                                  pending, polled)
                select k.minute, k.function_block_id, coalesce(c.n, 0), coalesce(e.succeeded, 0), coalesce(e.failed, 0),
                       coalesce(e.cancelled, 0),
                       case when rolled.snapshot then coalesce(d.pending, 0) end,
                       case when rolled.snapshot then coalesce(d.polled, 0) end
                  from (select minute, function_block_id from created
                        union select minute, function_block_id from ended
                        union select minute, function_block_id from depth) k
                  join rolled using (minute)
                  left join created c using (minute, function_block_id)
                  left join ended e using (minute, function_block_id)
                  left join depth d using (minute, function_block_id)
                returning minute)
            select (select count(*) from rolled) as minutes, (select count(*) from blocks) as block_rows
            """;

    /** Rows older than the retention go, their blocks' rows with them (on delete cascade). */
    static final String HISTORY_DELETE_EXPIRED = """
            delete from history_minute
             where minute < coalesce(cast(:now as timestamptz), now()) - :retentionMs * interval '1 millisecond'
            """;

    /**
     * The buckets of a range: {@code :rangeSeconds} up to the end of the bucket holding now, in
     * buckets of {@code :bucketSeconds} aligned on the hour (from 2000-01-01 UTC).
     */
    private static final String BUCKETS = """
            with span as (
                select date_bin(:bucketSeconds * interval '1 second', coalesce(cast(:now as timestamptz), now()),
                                timestamptz '2000-01-01 00:00:00+00') + :bucketSeconds * interval '1 second' as until),
            buckets as (
                select b.at, span.until
                  from span, generate_series(span.until - :rangeSeconds * interval '1 second',
                                             span.until - :bucketSeconds * interval '1 second',
                                             :bucketSeconds * interval '1 second') b (at)),
            minutes as (
                select date_bin(:bucketSeconds * interval '1 second', h.minute, timestamptz '2000-01-01 00:00:00+00') as at,
                       h.*
                  from history_minute h, span
                 where h.minute >= span.until - :rangeSeconds * interval '1 second' and h.minute < span.until)""";

    /**
     * The series of every bucket of a range, null where no minute of it was rolled up, from the
     * minutes' rows alone (at most 10,080 for a week, whatever the number of blocks). Counts
     * add up; a bucket's p50 is its minutes' p50s weighted by their samples, its p95 and p99 the
     * worst minute's (percentiles do not add up: a spike stays visible rather than averaged
     * away); the workers are those of its last snapshot.
     */
    static final String HISTORY_BUCKETS = BUCKETS + """
            ,
            totals as (
                select at, count(*) as rolled, bool_or(snapshot) as snapshot, sum(created) as created,
                       sum(succeeded) as succeeded, sum(failed) as failed, sum(cancelled) as cancelled,
                       sum(claims) as claims, sum(runs) as runs,
                       sum(claim_p50_ms * claims) / nullif(sum(claims) filter (where claim_p50_ms is not null), 0) as claim_p50_ms,
                       max(claim_p95_ms) as claim_p95_ms, max(claim_p99_ms) as claim_p99_ms,
                       sum(run_p50_ms * runs) / nullif(sum(runs) filter (where run_p50_ms is not null), 0) as run_p50_ms,
                       max(run_p95_ms) as run_p95_ms, max(run_p99_ms) as run_p99_ms,
                       (array_agg(workers_online order by minute desc) filter (where snapshot))[1]::bigint as workers_online,
                       (array_agg(workers_unreachable order by minute desc) filter (where snapshot))[1]::bigint as workers_unreachable,
                       (array_agg(workers_offline order by minute desc) filter (where snapshot))[1]::bigint as workers_offline
                  from minutes group by at)
            select b.at, t.rolled is not null as rolled, coalesce(t.snapshot, false) as snapshot,
                   coalesce(t.created, 0) as created, coalesce(t.succeeded, 0) as succeeded,
                   coalesce(t.failed, 0) as failed, coalesce(t.cancelled, 0) as cancelled,
                   t.claims, t.runs, t.claim_p50_ms, t.claim_p95_ms, t.claim_p99_ms, t.run_p50_ms, t.run_p95_ms,
                   t.run_p99_ms, t.workers_online, t.workers_unreachable, t.workers_offline
              from buckets b
              left join totals t using (at)
             order by b.at
            """;

    /**
     * Each block's queue depth at the last snapshot of each bucket, where it had jobs PENDING or
     * POLLED: the snapshots' minutes as an array, each a probe of the primary key (a join would
     * let the planner read every block's every minute).
     */
    static final String HISTORY_DEPTH = BUCKETS + """
            ,
            snapshots as (
                select at, max(minute) as minute from minutes where snapshot group by at)
            select s.at, hb.function_block_id, fb.name, fb.version, hb.pending, hb.polled
              from history_block_minute hb
              join snapshots s on s.minute = hb.minute
              join function_block fb on fb.id = hb.function_block_id
             where hb.minute = any (array(select minute from snapshots)) and (hb.pending > 0 or hb.polled > 0)
             order by fb.name, fb.version, s.at
            """;

    /** The stretch to roll up next: its first and last minute, and whether the last is the latest finished one. */
    record Stretch(OffsetDateTime first, OffsetDateTime last, boolean finishedLast) {
    }

    /** A bucket of a range; the counts and percentiles are null where no minute of it was rolled up. */
    record Bucket(OffsetDateTime at, boolean rolled, boolean snapshot, long created, long succeeded, long failed,
            long cancelled, @Nullable Long claims, @Nullable Long runs, @Nullable Double claimP50,
            @Nullable Double claimP95, @Nullable Double claimP99, @Nullable Double runP50, @Nullable Double runP95,
            @Nullable Double runP99, @Nullable Long workersOnline, @Nullable Long workersUnreachable,
            @Nullable Long workersOffline) {
    }

    /** A block's queue depth at a bucket's last snapshot. */
    record Depth(OffsetDateTime at, UUID functionBlockId, String name, String version, long pending, long polled) {
    }

    private final JdbcClient jdbc;

    HistoryStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Whether this transaction holds the rollup's lock (released at its end); false: another replica has it. */
    boolean tryLock() {
        return Boolean.TRUE.equals(jdbc.sql(HISTORY_LOCK).query(Boolean.class).single());
    }

    @Nullable
    Stretch missing(@Nullable OffsetDateTime now, Duration grace, int horizonMinutes, int batch) {
        return jdbc.sql(HISTORY_MINUTES_MISSING).param("now", now).param("graceMs", grace.toMillis())
                .param("horizonMinutes", horizonMinutes).param("batch", batch)
                .query((rs, n) -> new Stretch(rs.getObject("first", OffsetDateTime.class),
                        rs.getObject("last", OffsetDateTime.class), rs.getBoolean("finished_last")))
                .optional().orElse(null);
    }

    /** Rolls up the missing minutes of a stretch; answers how many minutes it wrote. */
    long rollUp(OffsetDateTime first, OffsetDateTime last, @Nullable OffsetDateTime snapshot) {
        return jdbc.sql(HISTORY_ROLL_UP).param("first", first).param("last", last).param("snapshot", snapshot)
                .query((rs, n) -> rs.getLong("minutes")).single();
    }

    long deleteExpired(@Nullable OffsetDateTime now, Duration retention) {
        return jdbc.sql(HISTORY_DELETE_EXPIRED).param("now", now).param("retentionMs", retention.toMillis()).update();
    }

    List<Bucket> buckets(@Nullable OffsetDateTime now, HistoryRange range) {
        return range(jdbc.sql(HISTORY_BUCKETS), now, range)
                .query((rs, n) -> new Bucket(rs.getObject("at", OffsetDateTime.class), rs.getBoolean("rolled"),
                        rs.getBoolean("snapshot"), rs.getLong("created"), rs.getLong("succeeded"),
                        rs.getLong("failed"), rs.getLong("cancelled"), rs.getObject("claims", Long.class),
                        rs.getObject("runs", Long.class), rs.getObject("claim_p50_ms", Double.class),
                        rs.getObject("claim_p95_ms", Double.class), rs.getObject("claim_p99_ms", Double.class),
                        rs.getObject("run_p50_ms", Double.class), rs.getObject("run_p95_ms", Double.class),
                        rs.getObject("run_p99_ms", Double.class), rs.getObject("workers_online", Long.class),
                        rs.getObject("workers_unreachable", Long.class), rs.getObject("workers_offline", Long.class)))
                .list();
    }

    List<Depth> depth(@Nullable OffsetDateTime now, HistoryRange range) {
        return range(jdbc.sql(HISTORY_DEPTH), now, range)
                .query((rs, n) -> new Depth(rs.getObject("at", OffsetDateTime.class),
                        rs.getObject("function_block_id", UUID.class), rs.getString("name"), rs.getString("version"),
                        rs.getLong("pending"), rs.getLong("polled")))
                .list();
    }

    private static JdbcClient.StatementSpec range(JdbcClient.StatementSpec statement, @Nullable OffsetDateTime now,
            HistoryRange range) {
        return statement.param("now", now).param("rangeSeconds", range.span().toSeconds())
                .param("bucketSeconds", range.bucket().toSeconds());
    }
}
