package io.blackboard.job;

import io.blackboard.platform.sql.SqlArrays;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The engine's side of the job table: create, read, cancel, the result feed and retention. */
@Repository
class JobStore {

    /** The batch to create, one JSON document, so any batch size is one statement. */
    private static final String INPUT = """
            jsonb_to_recordset(cast(:jobs as jsonb)) as x(
                ord int, id uuid, function_block_id uuid, type text, payload jsonb, priority int,
                max_attempts int, selector jsonb, correlation_id text, idempotency_key text)
            """;

    static final String JOB_INSERT = """
            with inserted as (
                insert into job (id, function_block_id, type, payload, priority, max_attempts, selector,
                                 correlation_id, idempotency_key)
                select id, function_block_id, type, payload, priority, max_attempts, selector,
                       correlation_id, idempotency_key
                  from %s
                 order by ord
                on conflict (idempotency_key) do nothing
                returning *),
            events as (
                insert into job_event (job_id, kind, attempt, actor)
                select id, 'CREATED', 0, 'engine' from inserted)
            select %s from inserted j
            """.formatted(INPUT, JobRows.COLUMNS);

    /** Which job each keyed input names now, and whether it is the same job as the one asked for. */
    static final String JOB_MATCH_IDEMPOTENCY_KEYS = """
            select x.ord, j.id,
                   (j.function_block_id = x.function_block_id and j.type = x.type and j.payload = x.payload
                    and j.priority = x.priority and j.max_attempts = x.max_attempts and j.selector = x.selector
                    and j.correlation_id is not distinct from x.correlation_id) as same
              from %s
              join job j on j.idempotency_key = x.idempotency_key
            """.formatted(INPUT);

    /** The requested function blocks that exist, with their params schema (null when none). */
    static final String FUNCTION_BLOCK_PARAMS_SCHEMAS = """
            select id, params_json_schema::text as schema from function_block where id = any (cast(:ids as uuid[]))
            """;

    static final String JOB_FIND = "select " + JobRows.COLUMNS + " from job j where j.id = :id";

    static final String JOB_FIND_MANY = "select " + JobRows.COLUMNS + " from job j where j.id = any (cast(:ids as uuid[]))";

    static final String JOB_EVENTS = """
            select id, kind, attempt, worker_id, actor, detail, at from job_event where job_id = :id order by id
            """;

    static final String JOB_CANCEL = """
            with cancelled as (
                update job j
                   set status = 'PUSHED', outcome = 'CANCELLED', pushed_at = now(),
                       push_xid = pg_current_xact_id(), push_seq = nextval('job_push_seq')
                 where j.id = :id and j.status in ('PENDING', 'POLLED')
                returning j.id, j.attempt, j.worker_id),
            events as (
                insert into job_event (job_id, kind, attempt, worker_id, actor)
                select id, 'CANCELLED', attempt, worker_id, 'engine' from cancelled)
            select count(*) from cancelled
            """;

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
     * Pushes after the cursor that {@link #JOB_RESULTS_AFTER} cannot show yet, since a transaction
     * older than them is still open: a reader that found nothing re-checks soon rather than
     * waiting for the next push's wake-up, which the one that lands them may never send.
     */
    static final String JOB_RESULTS_PENDING = """
            select exists (
                select 1 from job j
                 where j.status = 'PUSHED'
                   and (j.push_xid, j.push_seq) > (cast(:xid as xid8), :seq)
                   and j.push_xid >= pg_snapshot_xmin(pg_current_snapshot()))
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

    /** Function blocks whose params schema is kept; a deployment has tens or hundreds. */
    private static final int MAX_KNOWN_SCHEMAS = 1_000;

    private final JdbcClient jdbc;
    private final Map<UUID, Optional<String>> knownSchemas = new ConcurrentHashMap<>();

    JobStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** The jobs inserted; an input whose idempotency key is taken is not among them. */
    List<JobView> insert(String jobsJson) {
        return jdbc.sql(JOB_INSERT).param("jobs", jobsJson).query(JobRows::view).list();
    }

    record KeyMatch(int ord, UUID id, boolean same) {
    }

    List<KeyMatch> matchIdempotencyKeys(String jobsJson) {
        return jdbc.sql(JOB_MATCH_IDEMPOTENCY_KEYS).param("jobs", jobsJson)
                .query((rs, n) -> new KeyMatch(rs.getInt("ord"), rs.getObject("id", UUID.class),
                        rs.getBoolean("same")))
                .list();
    }

    /**
     * The params schema of each of these function blocks that exists (empty when it has none).
     * A function block's contract never changes (the same name and version with another schema
     * is refused) and no function block is ever deleted, so what was read once is kept, and a
     * create of known blocks costs no look-up.
     */
    Map<UUID, Optional<String>> paramsSchemas(Collection<UUID> ids) {
        Map<UUID, Optional<String>> schemas = new HashMap<>();
        List<UUID> unknown = new ArrayList<>();
        for (UUID id : ids) {
            Optional<String> schema = knownSchemas.get(id);
            if (schema == null) {
                unknown.add(id);
            } else {
                schemas.put(id, schema);
            }
        }
        if (unknown.isEmpty()) {
            return schemas;
        }
        Map<UUID, Optional<String>> loaded = new HashMap<>();
        jdbc.sql(FUNCTION_BLOCK_PARAMS_SCHEMAS).param("ids", SqlArrays.uuids(unknown))
                .query((rs, n) -> loaded.put(rs.getObject("id", UUID.class),
                        Optional.ofNullable(rs.getString("schema"))))
                .list();
        if (knownSchemas.size() + loaded.size() > MAX_KNOWN_SCHEMAS) {
            knownSchemas.clear();
        }
        knownSchemas.putAll(loaded);
        schemas.putAll(loaded);
        return schemas;
    }

    /** Reads these function blocks' schemas afresh next time: rows were removed behind the server's back. */
    void forgetParamsSchemas(Collection<UUID> ids) {
        ids.forEach(knownSchemas::remove);
    }

    Optional<JobView> find(UUID id) {
        return jdbc.sql(JOB_FIND).param("id", id).query(JobRows::view).optional();
    }

    List<JobView> findMany(Collection<UUID> ids) {
        return jdbc.sql(JOB_FIND_MANY).param("ids", SqlArrays.uuids(ids)).query(JobRows::view).list();
    }

    List<JobEvent> events(UUID id) {
        return jdbc.sql(JOB_EVENTS).param("id", id)
                .query((rs, n) -> new JobEvent(rs.getLong("id"), EventKind.valueOf(rs.getString("kind")), rs.getInt("attempt"),
                        rs.getObject("worker_id", UUID.class), rs.getString("actor"), rs.getString("detail"),
                        rs.getObject("at", OffsetDateTime.class)))
                .list();
    }

    boolean cancel(UUID id) {
        return jdbc.sql(JOB_CANCEL).param("id", id).query(Integer.class).single() == 1;
    }

    /** Jobs matching the filter in creation order, after the keyset cursor, at most {@code limit}. */
    List<JobView> list(JobFilter filter, int limit) {
        StringBuilder sql = new StringBuilder("select ").append(JobRows.COLUMNS).append(" from job j where true");
        var params = new HashMap<String, Object>();
        if (filter.status() != null) {
            sql.append(" and j.status = :status");
            params.put("status", filter.status().name());
        }
        if (filter.functionBlockId() != null) {
            sql.append(" and j.function_block_id = :functionBlockId");
            params.put("functionBlockId", filter.functionBlockId());
        }
        if (filter.workerId() != null) {
            sql.append(" and j.worker_id = :workerId");
            params.put("workerId", filter.workerId());
        }
        if (filter.correlationId() != null) {
            sql.append(" and j.correlation_id = :correlationId");
            params.put("correlationId", filter.correlationId());
        }
        if (filter.after() != null) {
            sql.append(" and (j.created_at, j.id) > (:afterCreatedAt, :afterId)");
            params.put("afterCreatedAt", filter.after().createdAt());
            params.put("afterId", filter.after().id());
        }
        sql.append(" order by j.created_at, j.id limit :limit");
        params.put("limit", limit);
        return jdbc.sql(sql.toString()).params(params).query(JobRows::view).list();
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
