package io.blackboard.job;

import io.blackboard.platform.SqlArrays;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Repository;

/** The worker's side of the job table: claim and push, one statement each on the hot path. */
@Repository
class ClaimStore {

    /**
     * Locks the polling worker's row for the claim that follows in the same transaction, so one
     * worker's concurrent polls cannot together exceed its concurrency, and a claim cannot slip
     * past the sweeper taking the worker OFFLINE. Returns what the claim needs to know.
     */
    static final String WORKER_POLL = """
            update worker w set last_polled_at = now()
             where w.id = :workerId and w.deleted_at is null
            returning w.state, w.directive, w.concurrency, w.labels::text as labels,
                      array(select function_block_id from worker_function_block
                             where worker_id = w.id)::text[] as function_block_ids
            """;

    /**
     * One statement per poll. Probes the PENDING index once per requested function block
     * (claim order within each), merges, and takes at most what the worker may still hold.
     * The picking CTE is MATERIALIZED so it runs exactly once (PostgreSQL bug 15715 is what
     * happens to {@code WHERE id IN (SELECT ... LIMIT n FOR UPDATE SKIP LOCKED)}).
     * <p>{@code :limit} is written into the text ({@link #claimSql}), not bound: with the limit a
     * parameter PostgreSQL never settles on the generic plan and plans every poll afresh, 0.3 ms
     * of its CPU per poll; with it a literal, each limit's statement is planned five times and
     * then reuses its plan (BENCHMARKS.md).
     */
    static final String JOB_CLAIM = """
            with picked as materialized (
                select p.id
                  from unnest(cast(:functionBlockIds as uuid[])) as fb(id)
                  cross join lateral (
                      select j.id, j.priority, j.created_at
                        from job j
                       where j.function_block_id = fb.id and j.status = 'PENDING'
                         and j.selector <@ cast(:labels as jsonb)
                       order by j.priority desc, j.created_at, j.id
                       limit :limit
                         for update skip locked) p
                 order by p.priority desc, p.created_at, p.id
                 limit greatest(0, least(:limit, :concurrency -
                       (select count(*) from job h where h.worker_id = :workerId and h.status = 'POLLED')))),
            claimed as (
                update job j
                   set status = 'POLLED', worker_id = :workerId, polled_at = now(),
                       deadline = now() + :timeoutMs * interval '1 millisecond', attempt = j.attempt + 1
                  from picked
                 where j.id = picked.id and j.status = 'PENDING'
                returning j.*),
            events as (
                insert into job_event (job_id, kind, attempt, worker_id, actor)
                select id, 'CLAIMED', attempt, worker_id, 'worker' from claimed)
            select %s from claimed j order by j.priority desc, j.created_at, j.id
            """.formatted(JobRows.COLUMNS);

    /**
     * The holder's push: only the live claim (worker, attempt) of a POLLED job can land, and a
     * successful EXECUTE result only once it is checked against its block's result schema, if
     * any (the schema describes what the block computes; ACQUIRE answers acquires and ROLLBACK
     * what it undid, so their results are not held to it).
     */
    static final String JOB_PUSH = """
            with pushed as (
                update job j
                   set status = 'PUSHED', outcome = :outcome,
                       failure_reason = case when :outcome = 'FAILURE' then 'WORKER_REPORTED' end,
                       result = cast(:result as jsonb), acquires = cast(:acquires as jsonb),
                       db_updates = cast(:dbUpdates as jsonb), error = cast(:error as jsonb),
                       pushed_at = now(), push_xid = pg_current_xact_id(), push_seq = nextval('job_push_seq')
                 where j.id = :jobId and j.worker_id = :workerId and j.status = 'POLLED'
                   and j.attempt = coalesce(cast(:attempt as integer), j.attempt)
                   and (:outcome <> 'SUCCESS' or j.type <> 'EXECUTE' or cast(:resultChecked as boolean) or not exists (
                        select 1 from function_block fb
                         where fb.id = j.function_block_id and fb.result_data_json_schema is not null))
                returning j.*),
            events as (
                insert into job_event (job_id, kind, attempt, worker_id, actor, detail)
                select id, 'PUSHED', attempt, worker_id, 'worker', outcome from pushed)
            select %s from pushed j
            """.formatted(JobRows.COLUMNS);

    /**
     * A batch of pushes by one worker, one statement: each lands only on its live claim, and a
     * success only on a block without a result schema unless its result was checked
     * ({@code checked}), as {@link #JOB_PUSH} does for one push.
     */
    static final String JOB_PUSH_BATCH = """
            with input as (
                select * from jsonb_to_recordset(cast(:pushes as jsonb)) as x(
                    ord int, job_id uuid, attempt int, outcome text, result jsonb, acquires jsonb,
                    db_updates jsonb, error jsonb, checked boolean)),
            pushed as (
                update job j
                   set status = 'PUSHED', outcome = x.outcome,
                       failure_reason = case when x.outcome = 'FAILURE' then 'WORKER_REPORTED' end,
                       result = x.result, acquires = x.acquires, db_updates = x.db_updates, error = x.error,
                       pushed_at = now(), push_xid = pg_current_xact_id(), push_seq = nextval('job_push_seq')
                  from input x
                 where j.id = x.job_id and j.worker_id = :workerId and j.status = 'POLLED'
                   and j.attempt = coalesce(x.attempt, j.attempt)
                   and (x.outcome <> 'SUCCESS' or j.type <> 'EXECUTE' or x.checked or not exists (
                        select 1 from function_block fb
                         where fb.id = j.function_block_id and fb.result_data_json_schema is not null))
                returning j.*, x.ord),
            events as (
                insert into job_event (job_id, kind, attempt, worker_id, actor, detail)
                select id, 'PUSHED', attempt, worker_id, 'worker', outcome from pushed)
            select j.ord, %s from pushed j
            """.formatted(JobRows.COLUMNS);

    /** The result schema of each EXECUTE job's function block (other jobs, or unknown ones, are absent). */
    static final String JOB_RESULT_SCHEMAS = """
            select j.id, fb.result_data_json_schema::text as schema
              from job j join function_block fb on fb.id = j.function_block_id
             where j.id = any (cast(:ids as uuid[])) and j.type = 'EXECUTE' and fb.result_data_json_schema is not null
            """;

    /** After a push changed nothing: where the job stands, and whether this push repeats the one that landed. */
    static final String JOB_PUSH_VERDICT = """
            select status, attempt, outcome, failure_reason,
                   (status = 'PUSHED' and worker_id = :workerId
                    and attempt = coalesce(cast(:attempt as integer), attempt)
                    and failure_reason is not distinct from
                        (case when :outcome = 'FAILURE' then 'WORKER_REPORTED' end)
                    and outcome = :outcome
                    and result is not distinct from cast(:result as jsonb)
                    and acquires is not distinct from cast(:acquires as jsonb)
                    and db_updates is not distinct from cast(:dbUpdates as jsonb)
                    and error is not distinct from cast(:error as jsonb)) as repeated,
                   (status = 'PUSHED' and worker_id = :workerId
                    and attempt = coalesce(cast(:attempt as integer), attempt)
                    and (outcome = 'SUCCESS' or failure_reason = 'WORKER_REPORTED')) as mine
              from job where id = :jobId
            """;

    static final String JOB_OF_WORKER = "select " + JobRows.COLUMNS + """
              from job j
             where j.worker_id = :workerId and (cast(:status as text) is null or j.status = :status)
             order by j.polled_at desc nulls last, j.id
             limit :limit
            """;

    /** The most jobs one poll may ask for (PollRequest). */
    static final int MAX_POLL_LIMIT = 100;
    private static final Map<Integer, String> CLAIM_BY_LIMIT = new ConcurrentHashMap<>();

    private final JdbcClient jdbc;

    ClaimStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** The claim statement for one limit, its text made once. */
    private static String claimSql(int limit) {
        if (limit < 1 || limit > MAX_POLL_LIMIT) {
            throw new IllegalArgumentException("limit " + limit + " is outside 1.." + MAX_POLL_LIMIT);
        }
        return CLAIM_BY_LIMIT.computeIfAbsent(limit, n -> JOB_CLAIM.replace(":limit", Integer.toString(n)));
    }

    record PollingWorker(String state, String directive, int concurrency, String labels,
            List<UUID> functionBlockIds) {
    }

    Optional<PollingWorker> lockForPoll(UUID workerId) {
        return jdbc.sql(WORKER_POLL).param("workerId", workerId)
                .query((rs, n) -> new PollingWorker(rs.getString("state"), rs.getString("directive"),
                        rs.getInt("concurrency"), rs.getString("labels"),
                        Arrays.stream((String[]) rs.getArray("function_block_ids").getArray())
                                .map(UUID::fromString).toList()))
                .optional();
    }

    List<JobView> claim(UUID workerId, PollingWorker worker, Collection<UUID> functionBlockIds, int limit,
            Duration timeout) {
        return jdbc.sql(claimSql(limit))
                .param("workerId", workerId).param("functionBlockIds", SqlArrays.uuids(functionBlockIds))
                .param("labels", worker.labels()).param("concurrency", worker.concurrency())
                .param("timeoutMs", timeout.toMillis())
                .query(JobRows::view).list();
    }

    /** The pushed job, or empty when this push changed nothing (see {@link #verdict}). */
    Optional<JobView> push(Push push, boolean resultChecked) {
        return push.bind(jdbc.sql(JOB_PUSH)).param("resultChecked", resultChecked).query(JobRows::view).optional();
    }

    /** The jobs the batch pushed, by their position in the batch ({@code ord} of each row). */
    Map<Integer, JobView> pushBatch(UUID workerId, String pushesJson) {
        Map<Integer, JobView> pushed = new HashMap<>();
        jdbc.sql(JOB_PUSH_BATCH).param("workerId", workerId).param("pushes", pushesJson)
                .query((rs, n) -> pushed.put(rs.getInt("ord"), JobRows.view(rs, n))).list();
        return pushed;
    }

    Map<UUID, String> resultSchemas(Collection<UUID> jobIds) {
        Map<UUID, String> schemas = new HashMap<>();
        jdbc.sql(JOB_RESULT_SCHEMAS).param("ids", SqlArrays.uuids(jobIds))
                .query((rs, n) -> schemas.put(rs.getObject("id", UUID.class), rs.getString("schema"))).list();
        return schemas;
    }

    /** {@code repeated}: this very push landed before; {@code mine}: this worker's push landed, another result. */
    record Verdict(JobProblems.JobState state, boolean repeated, boolean mine) {
    }

    Optional<Verdict> verdict(Push push) {
        return push.bind(jdbc.sql(JOB_PUSH_VERDICT))
                .query((rs, n) -> new Verdict(JobRows.state(rs), rs.getBoolean("repeated"),
                        rs.getBoolean("mine"))).optional();
    }

    Optional<JobView> find(UUID jobId) {
        return jdbc.sql(JobStore.JOB_FIND).param("id", jobId).query(JobRows::view).optional();
    }

    List<JobView> ofWorker(UUID workerId, @Nullable JobStatus status, int limit) {
        return jdbc.sql(JOB_OF_WORKER).param("workerId", workerId)
                .param("status", status == null ? null : status.name()).param("limit", limit)
                .query(JobRows::view).list();
    }

    /** A push with its JSON documents serialized, ready to bind. */
    record Push(UUID jobId, UUID workerId, @Nullable Integer attempt, String outcome, @Nullable String result,
            @Nullable String acquires, @Nullable String dbUpdates, @Nullable String error) {

        JdbcClient.StatementSpec bind(JdbcClient.StatementSpec spec) {
            return spec.param("jobId", jobId).param("workerId", workerId).param("attempt", attempt)
                    .param("outcome", outcome).param("result", result).param("acquires", acquires)
                    .param("dbUpdates", dbUpdates).param("error", error);
        }
    }
}
