package io.blackboard.ojs;

import io.blackboard.job.JobLanding;
import io.blackboard.platform.sql.CastParams;
import io.blackboard.platform.sql.SqlArrays;
import io.blackboard.worker.Directive;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Component;

/**
 * The binding's SQL on the job, worker and function block tables. Every transition is one
 * guarded statement with its audit event, as the native ones are: the claim locks with
 * {@code skip locked} and writes CLAIMED, an ack or nack lands only on a POLLED job an OJS worker
 * holds (that worker, when it names itself) through the native landing ({@link JobLanding}).
 */
@Component
class OjsStore {

    /** The columns of {@link OjsJob}, read from a job {@code j} with {@link #FROM}. */
    private static final String COLUMNS = """
            j.id, fb.name as type, j.queue, j.ojs::text as ojs, j.payload::text as payload, j.status, j.outcome,
            j.failure_reason, j.priority, j.attempt, j.releases, j.max_attempts, j.created_at, j.run_at, j.polled_at,
            j.pushed_at, j.result::text as result, j.error::text as error, j.errors::text as errors,
            j.execution_timeout_ms, w.ojs_id as worker""";
    private static final String FROM =
            " j join function_block fb on fb.id = j.function_block_id left join worker w on w.id = j.worker_id";

    static final String JOB_FIND = "select " + COLUMNS + " from job" + FROM + " where j.id = :id";

    /** The newest registered block of each name (OJS types carry no version). */
    static final String BLOCKS_BY_NAME = """
            select distinct on (name) name, id, params_json_schema::text as params_schema from function_block
             where name = any (cast(:names as text[]))
             order by name, created_at desc, id desc
            """;

    static final String JOB_RESULT_SCHEMA = """
            select fb.result_data_json_schema::text from job j join function_block fb on fb.id = j.function_block_id
             where j.id = :id and j.type = 'EXECUTE' and fb.result_data_json_schema is not null
            """;

    /** A block for a type nobody registered: no schema, not pure; a worker may register it later. */
    static final String IMPLICIT_BLOCK = """
            insert into function_block (id, name, version, description)
            values (:id, :name, '0', 'made by the OJS binding for jobs of this type')
            on conflict (name, version) do nothing
            """;

    /** The jobs of an enqueue, in order; a job whose id is taken is not inserted (the caller refuses them all). */
    static final String JOB_INSERT = """
            with x as (
                select * from jsonb_to_recordset(cast(:jobs as jsonb)) as x(
                    ord int, id uuid, function_block_id uuid, payload jsonb, priority int, max_attempts int,
                    correlation_id text, run_at timestamptz, retry_policy jsonb, execution_timeout_ms bigint,
                    queue text, ojs jsonb)),
            inserted as (
                insert into job (id, function_block_id, type, payload, priority, max_attempts, correlation_id, status,
                                 run_at, retry_policy, execution_timeout_ms, queue, ojs)
                select id, function_block_id, 'EXECUTE', payload, priority, max_attempts, correlation_id,
                       case when x.run_at > now() then 'SCHEDULED' else 'PENDING' end, x.run_at, retry_policy,
                       execution_timeout_ms, queue, ojs
                  from x order by ord
                on conflict (id) do nothing
                returning *),
            events as (
                insert into job_event (job_id, kind, attempt, actor, detail)
                select id, 'CREATED', 0, 'engine',
                       case when status = 'SCHEDULED' then 'runAt ' || run_at else 'enqueued through OJS' end
                  from inserted)
            select %s from inserted%s
            """.formatted(COLUMNS, FROM);

    /**
     * An OJS worker seen again: locked first (as a revived native worker is), then marked seen and
     * ONLINE, with the worker event of a return when it was UNREACHABLE or OFFLINE. No row when
     * the worker does not exist yet ({@link #WORKER_CREATE}).
     */
    static final String WORKER_SEEN = """
            with locked as materialized (
                select id, state from worker where ojs_id = :ojsId and deleted_at is null
                   for no key update),
            seen as (
                update worker w
                   set last_seen_at = now(), state = 'ONLINE',
                       state_changed_at = case when l.state = 'ONLINE' then w.state_changed_at else now() end
                  from locked l
                 where w.id = l.id
                returning w.id, w.state, w.directive, l.state as was),
            back as (
                insert into worker_event (worker_id, kind, state, from_state, directive, actor, detail)
                select id, 'ONLINE', state, was, directive, 'worker', 'an OJS call' from seen where was <> 'ONLINE')
            select id, directive, now() as server_time from seen
            """;

    /**
     * An OJS worker made on its first call: its id is the name it chose, with its REGISTERED
     * event. No row when a concurrent first call made it ({@link #WORKER_SEEN} then finds it).
     */
    static final String WORKER_CREATE = """
            with made as (
                insert into worker (id, name, ojs_id, sdk_name, concurrency)
                values (:newId, :ojsId, :ojsId, 'ojs', 10000)
                on conflict (ojs_id) where ojs_id is not null and deleted_at is null do nothing
                returning id, state, directive),
            registered as (
                insert into worker_event (worker_id, kind, state, directive, actor, detail)
                select id, 'REGISTERED', state, directive, 'worker', 'an OJS worker, on its first call' from made)
            select id, directive, now() as server_time from made
            """;

    /**
     * The fetch: the first {@code :limit} claimable jobs of the queues, queue by queue in the
     * order given, each queue in claim order (priority, then first in), on the
     * {@code job_queue_claim} index; skipped when another claim holds them, claimed as a new
     * attempt with a lease (the fetch's, else the job's visibility timeout, else 30 s), never past
     * its execution timeout. The update's recheck of the status does not imply the PENDING
     * index's predicate, so it finds the picked jobs by id (see {@code ClaimStore.JOB_CLAIM}).
     */
    static final String JOB_FETCH = """
            with picked as materialized (
                select p.id
                  from unnest(cast(:queues as text[])) with ordinality as q(name, ord)
                 cross join lateral (
                    select j.id, j.priority, j.created_at from job j
                     where j.queue = q.name and j.status = 'PENDING'
                     order by j.priority desc, j.created_at, j.id
                     limit :limit
                       for update skip locked) p
                 order by q.ord, p.priority desc, p.created_at, p.id
                 limit :limit),
            claimed as (
                update job j
                   set status = 'POLLED', worker_id = :workerId, polled_at = now(),
                       deadline = least(now() + %s, now() + j.execution_timeout_ms * interval '1 millisecond'),
                       attempt = j.attempt + 1, progress_percent = null, progress_message = null, progress_at = null
                  from picked
                 where j.id = picked.id and coalesce(j.status = 'PENDING', false)
                returning j.*),
            events as (
                insert into job_event (job_id, kind, attempt, worker_id, actor)
                select id, 'CLAIMED', attempt, worker_id, 'worker' from claimed)
            select %s from claimed%s
             order by array_position(cast(:queues as text[]), j.queue), j.priority desc, j.created_at, j.id
            """.formatted(OjsStore.lease(), COLUMNS, FROM);

    /** Where an ack or nack may land: a POLLED job an OJS worker holds, that worker if it named itself. */
    private static final String HELD = """
              from worker w
             where j.id = :jobId and j.status = 'POLLED' and w.id = j.worker_id and w.ojs_id is not null
               and (cast(:ojsWorker as text) is null or w.ojs_id = :ojsWorker)
               and (cast(:attempt as integer) is null
                    or j.attempt - j.releases - coalesce((j.ojs ->> 'attempt_base')::int, 0) = :attempt)""";

    static final String JOB_ACK = landing("'SUCCESS'", "cast(:result as jsonb)", "cast(null as jsonb)");

    /** A failure: retried under the job's policy, parked as a dead letter, or final, as a native FAILURE push. */
    static final String JOB_NACK = landing("'FAILURE'", "cast(null as jsonb)", "cast(:error as jsonb)");

    /** A result landing on a claim an OJS worker holds ({@link #HELD}), through the native landing, with its event. */
    private static String landing(String outcome, String result, String error) {
        return """
                with pushed as (
                    update job j
                       set %s
                    %s
                    returning j.*, w.id as holder),
                events as (%s)
                select %s from pushed%s
                """.formatted(JobLanding.set(outcome, result, "cast(null as jsonb)", "cast(null as jsonb)", error),
                HELD, JobLanding.events("holder"), COLUMNS, FROM);
    }

    /** A nack with {@code requeue}: the claim handed back, available again, no attempt spent. */
    static final String JOB_RELEASE = """
            with released as (
                update job j
                   set status = 'PENDING', worker_id = null, polled_at = null, deadline = null,
                       releases = j.releases + 1
                %s
                returning j.*, w.id as holder),
            events as (
                insert into job_event (job_id, kind, attempt, worker_id, actor, detail)
                select id, 'RELEASED', attempt, holder, 'worker', 'an OJS nack with requeue' from released)
            select %s from released%s
            """.formatted(HELD, COLUMNS, FROM);

    static final String JOB_CANCEL = """
            with cancelled as (
                update job j
                   set status = 'PUSHED', outcome = 'CANCELLED', pushed_at = now(),
                       push_xid = pg_current_xact_id(), push_seq = nextval('job_push_seq')
                 where j.id = :id and j.status in ('SCHEDULED', 'PENDING', 'POLLED', 'PARKED')
                returning j.*),
            events as (
                insert into job_event (job_id, kind, attempt, worker_id, actor, detail)
                select id, 'CANCELLED', attempt, worker_id, 'engine', 'through OJS' from cancelled)
            select %s from cancelled%s
            """.formatted(COLUMNS, FROM);

    /**
     * A heartbeat extends the leases of the jobs it lists that the worker still holds, never
     * past their execution timeout; it releases nothing (OJS workers beat for some jobs only).
     * A job a concurrent push holds is skipped, as the native heartbeat does.
     */
    static final String JOB_EXTEND = """
            with held as materialized (
                select id from job
                 where worker_id = :workerId and status = 'POLLED' and id = any (cast(:jobIds as uuid[]))
                   for update skip locked)
            update job j
               set deadline = least(greatest(j.deadline, now() + %s),
                                    j.polled_at + j.execution_timeout_ms * interval '1 millisecond')
              from held
             where j.id = held.id and j.worker_id = :workerId and j.status = 'POLLED'
            returning j.id
            """.formatted(OjsStore.lease());

    /** Of the listed jobs, those the worker no longer holds: ended (cancelled, say) or taken back. */
    static final String JOBS_NOT_HELD = """
            select j.id from job j
             where j.id = any (cast(:jobIds as uuid[])) and (j.worker_id is distinct from :workerId or j.status <> 'POLLED')
            """;

    static final String DEAD_LETTERS = "select " + COLUMNS + " from job" + FROM + """

             where j.status = 'PARKED' and j.queue is not null and (cast(:queue as text) is null or j.queue = :queue)
               and (cast(:after as uuid) is null or j.id > :after)
             order by j.id
             limit :limit
            """;

    /**
     * A dead letter of an OJS job (the native ones are the operators', through the native API) run again, as the native re-run does (PENDING, its policy's attempts again
     * on top of those spent), with OJS's attempt count starting again from 0 ({@code attempt_base}).
     */
    static final String DEAD_LETTER_RETRY = """
            with rerun as (
                update job j
                   set status = 'PENDING',
                       max_attempts = least(10000, j.attempt - j.releases
                                                   + coalesce((j.retry_policy ->> 'maxAttempts')::int, 1)),
                       ojs = case when j.ojs is null then null
                                  else jsonb_set(j.ojs, '{attempt_base}', to_jsonb(j.attempt - j.releases)) end
                 where j.id = :id and j.status = 'PARKED' and j.queue is not null and j.attempt - j.releases < 10000
                returning j.*),
            events as (
                insert into job_event (job_id, kind, attempt, actor, detail)
                select id, 'RERUN', attempt, 'operator', 'a dead letter retried through OJS' from rerun)
            select %s from rerun%s
            """.formatted(COLUMNS, FROM);

    /** A dead letter deleted: ended as the FAILURE it parked instead of, as the native discard does. */
    static final String DEAD_LETTER_DELETE = """
            with discarded as (
                update job j
                   set status = 'PUSHED', outcome = 'FAILURE', failure_reason = 'WORKER_REPORTED', pushed_at = now(),
                       push_xid = pg_current_xact_id(), push_seq = nextval('job_push_seq')
                 where j.id = :id and j.status = 'PARKED' and j.queue is not null
                returning j.id, j.attempt),
            events as (
                insert into job_event (job_id, kind, attempt, actor, detail)
                select id, 'DISCARDED', attempt, 'operator', 'a dead letter deleted through OJS' from discarded)
            select count(*) from discarded
            """;

    /** The audit trail of OJS jobs as OJS events, the most recent first. */
    static final String EVENTS = """
            select * from (
                select e.id, e.at, e.attempt, j.id as job_id, fb.name as job_type, j.queue, w.ojs_id as worker,
                       coalesce((j.ojs ->> 'attempt_base')::int, 0) as base,
                       case when e.kind = 'PUSHED' and e.detail = 'SUCCESS'
                            then (extract(epoch from j.pushed_at - j.polled_at) * 1000)::bigint end as duration_ms,
                       case e.kind when 'CREATED' then 'job.enqueued' when 'CLAIMED' then 'job.started'
                                   when 'PUSHED' then case e.detail when 'SUCCESS' then 'job.completed'
                                                                    when 'CANCELLED' then 'job.cancelled'
                                                                    else 'job.failed' end
                                   when 'FAILED' then 'job.failed' when 'RETRYING' then 'job.retrying'
                                   when 'REQUEUED' then 'job.retrying' when 'RELEASED' then 'job.released'
                                   when 'CANCELLED' then 'job.cancelled' when 'PARKED' then 'job.dead_lettered'
                                   when 'DISCARDED' then 'job.discarded' when 'RERUN' then 'job.dead_letter_retried'
                                   when 'DUE' then 'job.available' end as type
                  from job j
                  join job_event e on e.job_id = j.id
                  join function_block fb on fb.id = j.function_block_id
                  left join worker w on w.id = e.worker_id
                 where j.queue is not null
                   and (cast(:queues as text[]) is null or j.queue = any (cast(:queues as text[])))
                   and (cast(:before as bigint) is null or e.id < :before)) x
             where x.type is not null and (cast(:types as text[]) is null or x.type = any (cast(:types as text[])))
             order by x.id desc
             limit :limit
            """;

    /** The queues with jobs not yet ended, and how many in each state. */
    static final String QUEUES = """
            select queue,
                   count(*) filter (where status = 'PENDING') as available,
                   count(*) filter (where status = 'POLLED') as active,
                   count(*) filter (where status = 'SCHEDULED') as scheduled,
                   count(*) filter (where status = 'PARKED') as dead
              from job where queue is not null and status in ('SCHEDULED', 'PENDING', 'POLLED', 'PARKED')
             group by queue order by queue
            """;

    private final JdbcClient jdbc;

    OjsStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** The lease of a claim or heartbeat: {@code :leaseMs} if given, else the job's visibility timeout, else 30 s. */
    private static String lease() {
        return "coalesce(cast(:leaseMs as bigint), (j.ojs -> 'options' ->> 'visibility_timeout_ms')::bigint, 30000)"
                + " * interval '1 millisecond'";
    }

    Optional<OjsJob> find(UUID id) {
        return jdbc.sql(JOB_FIND).param("id", id).query(OjsStore::job).optional();
    }

    /** A function block an OJS type names, with its params schema (null: none). */
    record Block(UUID id, @Nullable String paramsSchema) {
    }

    Map<String, Block> blocks(Collection<String> names) {
        Map<String, Block> found = new HashMap<>();
        jdbc.sql(BLOCKS_BY_NAME).param("names", names.toArray(String[]::new))
                .query((rs, n) -> found.put(rs.getString("name"),
                        new Block(rs.getObject("id", UUID.class), rs.getString("params_schema")))).list();
        return found;
    }

    /** The result schema of the job's block, when it is an EXECUTE job of a block with one. */
    Optional<String> resultSchema(UUID jobId) {
        return jdbc.sql(JOB_RESULT_SCHEMA).param("id", jobId).query(String.class).optional();
    }

    void implicitBlock(UUID id, String name) {
        jdbc.sql(IMPLICIT_BLOCK).param("id", id).param("name", name).update();
    }

    List<OjsJob> insert(String jobsJson) {
        return jdbc.sql(JOB_INSERT).param("jobs", CastParams.text(jobsJson)).query(OjsStore::job).list();
    }

    /** An OJS worker's Blackboard id, its directive, and the database's time. */
    record Worker(UUID id, Directive directive, OffsetDateTime serverTime) {
    }

    /** The OJS worker, seen now: made if it does not exist (a deleted one is made anew). */
    Worker upsertWorker(String ojsId, UUID newId) {
        while (true) {
            Optional<Worker> seen = jdbc.sql(WORKER_SEEN).param("ojsId", ojsId).query(OjsStore::worker).optional();
            if (seen.isPresent()) {
                return seen.get();
            }
            Optional<Worker> made = jdbc.sql(WORKER_CREATE).param("ojsId", ojsId).param("newId", newId)
                    .query(OjsStore::worker).optional();
            if (made.isPresent()) {
                return made.get();
            }
        }
    }

    private static Worker worker(ResultSet rs, int row) throws SQLException {
        return new Worker(rs.getObject("id", UUID.class), Directive.valueOf(rs.getString("directive")),
                rs.getObject("server_time", OffsetDateTime.class));
    }

    UUID blockOf(UUID jobId) {
        return jdbc.sql("select function_block_id from job where id = :id").param("id", jobId).query(UUID.class)
                .single();
    }

    boolean ping() {
        return jdbc.sql("select 1").query(Integer.class).single() == 1;
    }

    List<OjsJob> fetch(UUID workerId, List<String> queues, int limit, @Nullable Long leaseMs) {
        return jdbc.sql(JOB_FETCH).param("workerId", workerId).param("queues", queues.toArray(String[]::new))
                .param("limit", limit).param("leaseMs", leaseMs).query(OjsStore::job).list();
    }

    /** Whose claim a landing is for: the job, the OJS worker when it named itself, the attempt when it gave one. */
    record Claim(UUID jobId, @Nullable String ojsWorker, @Nullable Integer attempt) {

        JdbcClient.StatementSpec bind(JdbcClient.StatementSpec spec) {
            return spec.param("jobId", jobId).param("ojsWorker", ojsWorker).param("attempt", attempt);
        }
    }

    Optional<OjsJob> ack(Claim claim, @Nullable String result) {
        return claim.bind(jdbc.sql(JOB_ACK)).param("result", result).query(OjsStore::job).optional();
    }

    Optional<OjsJob> nack(Claim claim, String error) {
        return claim.bind(jdbc.sql(JOB_NACK)).param("error", error).query(OjsStore::job).optional();
    }

    Optional<OjsJob> release(Claim claim) {
        return claim.bind(jdbc.sql(JOB_RELEASE)).query(OjsStore::job).optional();
    }

    Optional<OjsJob> cancel(UUID id) {
        return jdbc.sql(JOB_CANCEL).param("id", id).query(OjsStore::job).optional();
    }

    List<UUID> extend(UUID workerId, Collection<UUID> jobIds, @Nullable Long leaseMs) {
        return jdbc.sql(JOB_EXTEND).param("workerId", workerId).param("jobIds", SqlArrays.uuids(jobIds))
                .param("leaseMs", leaseMs).query(UUID.class).list();
    }

    List<UUID> notHeld(UUID workerId, Collection<UUID> jobIds) {
        return jdbc.sql(JOBS_NOT_HELD).param("workerId", workerId).param("jobIds", SqlArrays.uuids(jobIds))
                .query(UUID.class).list();
    }

    List<OjsJob> deadLetters(@Nullable String queue, @Nullable UUID after, int limit) {
        return jdbc.sql(DEAD_LETTERS).param("queue", queue).param("after", after).param("limit", limit)
                .query(OjsStore::job).list();
    }

    Optional<OjsJob> retryDeadLetter(UUID id) {
        return jdbc.sql(DEAD_LETTER_RETRY).param("id", id).query(OjsStore::job).optional();
    }

    boolean deleteDeadLetter(UUID id) {
        return jdbc.sql(DEAD_LETTER_DELETE).param("id", id).query(Long.class).single() > 0;
    }

    List<OjsEvent> events(@Nullable List<String> types, @Nullable List<String> queues, @Nullable Long before, int limit) {
        return jdbc.sql(EVENTS).param("types", types == null ? null : types.toArray(String[]::new))
                .param("queues", queues == null ? null : queues.toArray(String[]::new))
                .param("before", before).param("limit", limit)
                .query((rs, n) -> new OjsEvent(rs.getLong("id"), rs.getObject("at", OffsetDateTime.class),
                        rs.getString("type"), rs.getObject("job_id", UUID.class), rs.getString("job_type"),
                        rs.getString("queue"), rs.getInt("attempt") - rs.getInt("base"), rs.getString("worker"),
                        rs.getObject("duration_ms", Long.class)))
                .list();
    }

    List<OjsQueue> queues() {
        return jdbc.sql(QUEUES).query((rs, n) -> new OjsQueue(rs.getString("queue"), rs.getLong("available"),
                rs.getLong("active"), rs.getLong("scheduled"), rs.getLong("dead"))).list();
    }

    private static OjsJob job(ResultSet rs, int row) throws SQLException {
        return new OjsJob(rs.getObject("id", UUID.class), rs.getString("type"), rs.getString("queue"),
                rs.getString("ojs"), rs.getString("payload"), rs.getString("status"), rs.getString("outcome"),
                rs.getString("failure_reason"), rs.getInt("priority"), rs.getInt("attempt"), rs.getInt("releases"),
                rs.getInt("max_attempts"),
                rs.getObject("created_at", OffsetDateTime.class), rs.getObject("run_at", OffsetDateTime.class),
                rs.getObject("polled_at", OffsetDateTime.class), rs.getObject("pushed_at", OffsetDateTime.class),
                rs.getString("result"), rs.getString("error"), rs.getString("errors"),
                rs.getObject("execution_timeout_ms", Long.class), rs.getString("worker"));
    }
}
