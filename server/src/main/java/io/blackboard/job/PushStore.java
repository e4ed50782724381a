package io.blackboard.job;

import io.blackboard.platform.sql.SqlArrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Component;

/** The push: one guarded statement lands a result (or a batch of them) on the holder's live claim. */
@Component
class PushStore {

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

    private final JdbcClient jdbc;

    PushStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
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

    /** A push with its JSON documents serialized, ready to bind. */
    record Push(UUID jobId, UUID workerId, @Nullable Integer attempt, PushStatus outcome, @Nullable String result,
            @Nullable String acquires, @Nullable String dbUpdates, @Nullable String error) {

        JdbcClient.StatementSpec bind(JdbcClient.StatementSpec spec) {
            return spec.param("jobId", jobId).param("workerId", workerId).param("attempt", attempt)
                    .param("outcome", outcome.name()).param("result", result).param("acquires", acquires)
                    .param("dbUpdates", dbUpdates).param("error", error);
        }
    }
}
