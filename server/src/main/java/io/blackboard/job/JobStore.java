package io.blackboard.job;

import io.blackboard.platform.sql.SqlArrays;
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
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Component;

/** The engine's side of the job table: create, read, cancel, the result feed and retention. */
@Component
class JobStore {

    /**
     * The batch to create ({@link NewJob.Columns}), a column each, zipped by position: any batch
     * size is one statement. {@code ord} counts from 1 in the jobs' order.
     */
    static final String INPUT = """
            rows from (
                unnest(cast(:ids as uuid[])), unnest(cast(:blocks as uuid[])), unnest(cast(:types as text[])),
                unnest(cast(:priorities as int[])), unnest(cast(:maxAttempts as int[])),
                jsonb_array_elements(cast(:payloads as jsonb)), jsonb_array_elements(cast(:selectors as jsonb)),
                jsonb_to_recordset(cast(:given as jsonb)) as (
                    correlation_id text, idempotency_key text, run_at timestamptz, delay_ms bigint,
                    retry_policy jsonb, execution_timeout_ms bigint, block_choices uuid[]))
            with ordinality as x(id, function_block_id, type, priority, max_attempts, payload, selector,
                                 correlation_id, idempotency_key, run_at, delay_ms, retry_policy,
                                 execution_timeout_ms, block_choices, ord)
            """;

    /**
     * A job whose run_at (given, or now plus its delay on the database clock) is still ahead is
     * SCHEDULED: not claimable until {@link DueJobs} finds it due. The job row is its creation: a
     * job created PENDING has no CREATED row in {@code job_event} ({@link JobService#events} shows it
     * from the job, as event 0 at {@code created_at}); a SCHEDULED one has, with the run_at asked for,
     * which a retry moves later.
     */
    static final String JOB_INSERT = """
            with inserted as (
                insert into job (id, function_block_id, type, payload, priority, max_attempts, selector,
                                 correlation_id, idempotency_key, status, run_at, retry_policy, execution_timeout_ms)
                select id, function_block_id, type, payload, priority, max_attempts, selector,
                       correlation_id, idempotency_key,
                       case when s.run_at > now() then 'SCHEDULED' else 'PENDING' end, s.run_at, retry_policy,
                       execution_timeout_ms
                  from %s
                 cross join lateral (select coalesce(x.run_at, now() + x.delay_ms * interval '1 millisecond')
                                            as run_at) s
                 order by ord
                on conflict (idempotency_key) where idempotency_key is not null do nothing
                returning *),
            events as (
                insert into job_event (job_id, kind, attempt, actor, detail)
                select id, 'CREATED', 0, 'engine', 'runAt ' || run_at
                  from inserted where status = 'SCHEDULED')
            select %s from inserted j
            """.formatted(INPUT, JobRows.COLUMNS);

    /**
     * {@link #JOB_INSERT} for jobs without idempotency keys, which cannot conflict on the key's
     * index: a plain insert. {@code on conflict} makes every row a speculative insertion (a lock
     * taken and released, and a second WAL record to confirm the row), for keyless rows too.
     */
    static final String JOB_INSERT_KEYLESS = JOB_INSERT.replace(
            "\n    on conflict (idempotency_key) where idempotency_key is not null do nothing", "");

    /**
     * Which job each keyed input names now, and whether it is the same job as the one asked for.
     * A create that named its function block by name and versions is the same job on any block
     * it matched ({@code block_choices}): a newer version registered since must not make it a
     * conflict. What the server changes on its own is not compared: a retry moves {@code run_at}
     * (once the job has been claimed), a dead letter's re-run raises {@code max_attempts} (its
     * policy, compared whole, holds the maxAttempts asked for). The key's index holds keyed
     * jobs only: each input's key is looked up in it on its own (a {@code lateral}
     * subquery of at most the one job a key can name), where the statement says the key is not
     * null: the index is probed, never walked, whatever its size and statistics.
     */
    static final String JOB_MATCH_IDEMPOTENCY_KEYS = """
            select x.ord - 1 as ord, j.id,
                   ((j.function_block_id = x.function_block_id or j.function_block_id = any (x.block_choices)) and j.type = x.type and j.payload = x.payload
                    and j.priority = x.priority and j.selector = x.selector
                    and (j.max_attempts = x.max_attempts or j.retry_policy is not null)
                    and j.correlation_id is not distinct from x.correlation_id
                    and j.retry_policy is not distinct from x.retry_policy
                    and j.execution_timeout_ms is not distinct from x.execution_timeout_ms
                    and (x.run_at is null or j.run_at = x.run_at or j.attempt > 0)) as same
              from %s
             cross join lateral (select * from job j
                                  where j.idempotency_key = x.idempotency_key and j.idempotency_key is not null
                                  limit 1) j
            """.formatted(INPUT);

    /** The requested function blocks that exist, with their params schema and retry policy (null when none). */
    static final String FUNCTION_BLOCK_CONTRACTS = """
            select id, params_json_schema::text as schema, retry_policy::text as retry_policy,
                   execution_timeout_ms
              from function_block where id = any (cast(:ids as uuid[]))
            """;

    static final String JOB_FIND = "select " + JobRows.COLUMNS + " from job j where j.id = :id";

    static final String JOB_FIND_MANY = "select " + JobRows.COLUMNS + " from job j where j.id = any (cast(:ids as uuid[]))";

    /**
     * A job's stored events after an event id ({@link #FIRST_EVENT}: from the first), a range of
     * {@code job_event_by_job} read in order up to the limit, whatever the job's number of events.
     * A job created PENDING has no CREATED row: {@link JobService#events} adds it from the job.
     */
    static final String JOB_EVENTS = """
            select id, kind, attempt, worker_id, actor, detail, at from job_event
             where job_id = :id and id > :after
             order by id
             limit :limit
            """;

    /** The position before a job's first event (its CREATED event is id 0 when read from the job row). */
    static final long FIRST_EVENT = -1;

    static final String JOB_CANCEL = """
            with cancelled as (
                update job j
                   set status = 'PUSHED', outcome = 'CANCELLED', pushed_at = now(),
                       push_xid = pg_current_xact_id(), push_seq = nextval('job_push_seq')
                 where j.id = :id and j.status in ('SCHEDULED', 'PENDING', 'POLLED', 'PARKED')
                returning j.id, j.attempt, j.worker_id),
            events as (
                insert into job_event (job_id, kind, attempt, worker_id, actor)
                select id, 'CANCELLED', attempt, worker_id, 'engine' from cancelled)
            select count(*) from cancelled
            """;

    /** The jobs not yet ended that match every filter of a bulk cancel given (null: any). */
    private static final String CANCEL_FILTER = """
            j.status = any (cast(:statuses as text[]))
                   and (cast(:correlationId as text) is null or j.correlation_id = :correlationId)
                   and (cast(:functionBlockId as uuid) is null or j.function_block_id = :functionBlockId)
                   and (cast(:workerId as uuid) is null or j.worker_id = :workerId)""";

    /**
     * Cancels up to {@code :batch} matching jobs, each as {@link #JOB_CANCEL} cancels one. It
     * skips rows another transaction holds (a claim, a push): waiting for them while holding the
     * rows it took could deadlock with a batch push that locks in another order. What it
     * skipped, {@link #JOB_CANCEL_MATCHING_LEFT} finds, to be cancelled one at a time.
     */
    static final String JOB_CANCEL_MATCHING = """
            with picked as materialized (
                select id from job j
                 where %s
                 limit :batch
                   for update skip locked),
            cancelled as (
                update job j
                   set status = 'PUSHED', outcome = 'CANCELLED', pushed_at = now(),
                       push_xid = pg_current_xact_id(), push_seq = nextval('job_push_seq')
                  from picked
                 where j.id = picked.id and j.status in ('SCHEDULED', 'PENDING', 'POLLED', 'PARKED')
                returning j.id, j.attempt, j.worker_id),
            events as (
                insert into job_event (job_id, kind, attempt, worker_id, actor, detail)
                select id, 'CANCELLED', attempt, worker_id, 'engine', 'bulk cancel' from cancelled)
            select count(*) from cancelled
            """.formatted(CANCEL_FILTER);

    /** Matching jobs still not ended: those the skip-locked batches passed over. */
    static final String JOB_CANCEL_MATCHING_LEFT = "select j.id from job j where " + CANCEL_FILTER + " limit :batch";

    /**
     * A bulk cancel of held jobs only: the same statements, saying what is always true of a POLLED
     * job ({@code deadline is not null}), so that they read the deadline index of the POLLED jobs.
     */
    private static final String HELD_ONLY = "\n                   and j.deadline is not null";
    static final String JOB_CANCEL_MATCHING_HELD = JOB_CANCEL_MATCHING.replace(CANCEL_FILTER, CANCEL_FILTER + HELD_ONLY);
    static final String JOB_CANCEL_MATCHING_LEFT_HELD = JOB_CANCEL_MATCHING_LEFT.replace(CANCEL_FILTER,
            CANCEL_FILTER + HELD_ONLY);

    /** Function blocks whose contract is kept; a deployment has tens or hundreds. */
    private static final int MAX_KNOWN_BLOCKS = 1_000;

    private final JdbcClient jdbc;
    private final Map<UUID, Block> knownBlocks = new ConcurrentHashMap<>();

    JobStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * The jobs inserted; an input whose idempotency key is taken is not among them. Inputs without
     * keys ({@code keyed} false: none of them has one) are all inserted.
     */
    List<JobView> insert(NewJob.Columns jobs, boolean keyed) {
        return jdbc.sql(keyed ? JOB_INSERT : JOB_INSERT_KEYLESS).params(jobs.params()).query(JobRows::view).list();
    }

    record KeyMatch(int ord, UUID id, boolean same) {
    }

    List<KeyMatch> matchIdempotencyKeys(NewJob.Columns jobs) {
        return jdbc.sql(JOB_MATCH_IDEMPOTENCY_KEYS).params(jobs.params())
                .query((rs, n) -> new KeyMatch(rs.getInt("ord"), rs.getObject("id", UUID.class),
                        rs.getBoolean("same")))
                .list();
    }

    /** What a create needs of its function block: the params schema, the default retry policy (JSON) and timeout. */
    record Block(@Nullable String paramsSchema, @Nullable String retryPolicy, @Nullable Long executionTimeoutMs) {
    }

    /**
     * Each of these function blocks that exists. A function block's contract never changes (the
     * same name and version with another one is refused) and no function block is ever deleted,
     * so what was read once is kept, and a create of known blocks costs no look-up.
     */
    Map<UUID, Block> blocks(Collection<UUID> ids) {
        Map<UUID, Block> blocks = new HashMap<>();
        List<UUID> unknown = new ArrayList<>();
        for (UUID id : ids) {
            Block block = knownBlocks.get(id);
            if (block == null) {
                unknown.add(id);
            } else {
                blocks.put(id, block);
            }
        }
        if (unknown.isEmpty()) {
            return blocks;
        }
        Map<UUID, Block> loaded = new HashMap<>();
        jdbc.sql(FUNCTION_BLOCK_CONTRACTS).param("ids", SqlArrays.uuids(unknown))
                .query((rs, n) -> loaded.put(rs.getObject("id", UUID.class),
                        new Block(rs.getString("schema"), rs.getString("retry_policy"),
                                rs.getObject("execution_timeout_ms", Long.class))))
                .list();
        if (knownBlocks.size() + loaded.size() > MAX_KNOWN_BLOCKS) {
            knownBlocks.clear();
        }
        knownBlocks.putAll(loaded);
        blocks.putAll(loaded);
        return blocks;
    }

    /** Reads these function blocks afresh next time: rows were removed behind the server's back. */
    void forgetBlocks(Collection<UUID> ids) {
        ids.forEach(knownBlocks::remove);
    }

    Optional<JobView> find(UUID id) {
        return jdbc.sql(JOB_FIND).param("id", id).query(JobRows::view).optional();
    }

    List<JobView> findMany(Collection<UUID> ids) {
        return jdbc.sql(JOB_FIND_MANY).param("ids", SqlArrays.uuids(ids)).query(JobRows::view).list();
    }

    List<JobEvent> events(UUID id, long after, int limit) {
        return jdbc.sql(JOB_EVENTS).param("id", id).param("after", after).param("limit", limit)
                .query((rs, n) -> new JobEvent(rs.getLong("id"), EventKind.valueOf(rs.getString("kind")), rs.getInt("attempt"),
                        rs.getObject("worker_id", UUID.class), rs.getString("actor"), rs.getString("detail"),
                        rs.getObject("at", OffsetDateTime.class)))
                .list();
    }

    boolean cancel(UUID id) {
        return jdbc.sql(JOB_CANCEL).param("id", id).query(Integer.class).single() == 1;
    }

    /** One batch of a bulk cancel: how many it cancelled. */
    int cancelMatching(CancelRequest filter, List<String> statuses, int batch) {
        return bindCancel(jdbc.sql(heldOnly(statuses) ? JOB_CANCEL_MATCHING_HELD : JOB_CANCEL_MATCHING), filter,
                statuses, batch).query(Integer.class).single();
    }

    /** Matching jobs that are still not ended, up to {@code batch}. */
    List<UUID> leftToCancel(CancelRequest filter, List<String> statuses, int batch) {
        return bindCancel(jdbc.sql(heldOnly(statuses) ? JOB_CANCEL_MATCHING_LEFT_HELD : JOB_CANCEL_MATCHING_LEFT),
                filter, statuses, batch).query(UUID.class).list();
    }

    private static boolean heldOnly(List<String> statuses) {
        return statuses.equals(List.of(JobStatus.POLLED.name()));
    }

    private static JdbcClient.StatementSpec bindCancel(JdbcClient.StatementSpec spec, CancelRequest filter,
            List<String> statuses, int batch) {
        return spec.param("statuses", statuses.toArray(String[]::new)).param("correlationId", filter.correlationId())
                .param("functionBlockId", filter.functionBlockId()).param("workerId", filter.workerId())
                .param("batch", batch);
    }

    /** Jobs matching the filter in creation order, after the keyset cursor, at most {@code limit}. */
    List<JobView> list(JobFilter filter, int limit) {
        Query query = listQuery(filter, limit);
        return jdbc.sql(query.sql()).params(query.params()).query(JobRows::view).list();
    }

    /** A statement with its named parameters. */
    record Query(String sql, Map<String, Object> params) {
    }

    /**
     * The list's statement for this filter. It walks {@code job_created} in creation order and
     * stops at {@code limit} matches, unless a filter has an index that finds its few jobs
     * sooner (a correlation id, a worker, failures, a push time range); JobListPlanTest holds
     * each filter to an index at a million jobs.
     */
    static Query listQuery(JobFilter filter, int limit) {
        StringBuilder sql = new StringBuilder("select ").append(JobRows.COLUMNS).append(" from job j where true");
        var params = new HashMap<String, Object>();
        if (filter.status() != null) {
            // a scheduled job is PENDING to the API; its own status only keeps it out of the claim's index
            sql.append(" and j.status = any (cast(:statuses as text[]))");
            params.put("statuses", filter.status() == JobStatus.PENDING
                    ? new String[] {"PENDING", "SCHEDULED"} : new String[] {filter.status().name()});
            if (filter.status() == JobStatus.POLLED) {
                sql.append(" and j.deadline is not null"); // always true of a POLLED job: names the deadline index's predicate
            }
        }
        if (filter.outcome() != null) {
            sql.append(" and j.outcome = :outcome");
            params.put("outcome", filter.outcome().name());
        }
        if (filter.failureReason() != null) {
            sql.append(" and j.outcome = 'FAILURE' and j.failure_reason = :failureReason");
            params.put("failureReason", filter.failureReason().name());
        }
        if (filter.type() != null) {
            sql.append(" and j.type = :type");
            params.put("type", filter.type().name());
        }
        if (filter.functionBlockIds() != null) {
            sql.append(" and j.function_block_id = any (cast(:functionBlockIds as uuid[]))");
            params.put("functionBlockIds", SqlArrays.uuids(filter.functionBlockIds()));
        }
        if (filter.labels() != null) {
            sql.append(" and j.selector @> jsonb_object(cast(:labelKeys as text[]), cast(:labelValues as text[]))");
            params.put("labelKeys", filter.labels().keySet().toArray(String[]::new));
            params.put("labelValues", filter.labels().values().toArray(String[]::new));
        }
        if (filter.createdFrom() != null) {
            sql.append(" and j.created_at >= :createdFrom");
            params.put("createdFrom", filter.createdFrom());
        }
        if (filter.createdTo() != null) {
            sql.append(" and j.created_at < :createdTo");
            params.put("createdTo", filter.createdTo());
        }
        if (filter.pushedFrom() != null || filter.pushedTo() != null) {
            sql.append(" and j.status = 'PUSHED'");
        }
        if (filter.pushedFrom() != null) {
            sql.append(" and j.pushed_at >= :pushedFrom");
            params.put("pushedFrom", filter.pushedFrom());
        }
        if (filter.pushedTo() != null) {
            sql.append(" and j.pushed_at < :pushedTo");
            params.put("pushedTo", filter.pushedTo());
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
        return new Query(sql.toString(), params);
    }
}
