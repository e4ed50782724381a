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
                   set %s
                 where j.id = :jobId and j.worker_id = :workerId and j.status = 'POLLED'
                   and j.attempt = coalesce(cast(:attempt as integer), j.attempt)
                   and (:outcome <> 'SUCCESS' or j.type <> 'EXECUTE' or cast(:resultChecked as boolean) or not exists (
                        select 1 from function_block fb
                         where fb.id = j.function_block_id and fb.result_data_json_schema is not null))
                returning j.*),
            events as (%s)
            select %s from pushed j
            """.formatted(JobLanding.set(":outcome", "cast(:result as jsonb)", "cast(:acquires as jsonb)",
                    "cast(:dbUpdates as jsonb)", "cast(:error as jsonb)"), JobLanding.events("cast(:workerId as uuid)"), JobRows.COLUMNS);

    /**
     * A batch of pushes, one statement: each lands only on its pusher's live claim, and a success
     * only on a block without a result schema unless its result was checked ({@code checked}), as
     * {@link #JOB_PUSH} does for one push. Of two pushes of one job that could both land, one does
     * (which one, PostgreSQL's join decides); the other is answered as a push after it. The pushes
     * may be of several workers (those of a shared
     * push + next transaction, {@link NextService}); each row names its own, and {@code :workerIds}
     * all of them: the jobs are found among those workers' claims on their index, not among all
     * the jobs held (a join on the input, whose size the planner cannot know, could read those).
     */
    static final String JOB_PUSH_BATCH = """
            with input as (
                select * from jsonb_to_recordset(cast(:pushes as jsonb)) as x(
                    ord int, job_id uuid, worker_id uuid, attempt int, outcome text, result jsonb, acquires jsonb,
                    db_updates jsonb, error jsonb, checked boolean)),
            pushed as (
                update job j
                   set %s
                  from input x
                 where j.id = x.job_id and j.worker_id = x.worker_id and j.status = 'POLLED'
                   and j.worker_id = any (cast(:workerIds as uuid[]))
                   and j.attempt = coalesce(x.attempt, j.attempt)
                   and (x.outcome <> 'SUCCESS' or j.type <> 'EXECUTE' or x.checked or not exists (
                        select 1 from function_block fb
                         where fb.id = j.function_block_id and fb.result_data_json_schema is not null))
                returning j.*, x.ord, x.worker_id as pusher),
            events as (%s)
            select j.ord, %s from pushed j
            """.formatted(JobLanding.set("x.outcome", "x.result", "x.acquires", "x.db_updates", "x.error"), JobLanding.events("pusher"),
                    JobRows.COLUMNS);

    /** The result schema of each EXECUTE job's function block (other jobs, or unknown ones, are absent). */
    static final String JOB_RESULT_SCHEMAS = """
            select j.id, fb.result_data_json_schema::text as schema
              from job j join function_block fb on fb.id = j.function_block_id
             where j.id = any (cast(:ids as uuid[])) and j.type = 'EXECUTE' and fb.result_data_json_schema is not null
            """;

    /**
     * After a push changed nothing: where the job stands, and whether this push repeats the one
     * that landed. A FAILURE that was retried landed too: it is in the job's {@code errors}, as
     * an attempt other than the one that ended the job, if it ended by a reported failure.
     */
    static final String JOB_PUSH_VERDICT = """
            with found as (
                select j.*, exists (
                           select 1 from jsonb_array_elements(j.errors) e
                            where :outcome = 'FAILURE' and e ->> 'workerId' = cast(:workerId as text)
                              and (e ->> 'attempt')::int = coalesce(cast(:attempt as integer), (e ->> 'attempt')::int)
                              and not coalesce(j.worker_id is not null and j.failure_reason = 'WORKER_REPORTED'
                                               and (e ->> 'attempt')::int = j.attempt, false)
                              and e -> 'error' is not distinct from coalesce(cast(:error as jsonb), 'null'::jsonb))
                           as retried_repeat,
                       exists (
                           select 1 from jsonb_array_elements(j.errors) e
                            where e ->> 'workerId' = cast(:workerId as text)
                              and (e ->> 'attempt')::int = coalesce(cast(:attempt as integer), (e ->> 'attempt')::int)
                              and not coalesce(j.worker_id is not null and j.failure_reason = 'WORKER_REPORTED'
                                               and (e ->> 'attempt')::int = j.attempt, false))
                           as retried_mine
                  from job j where j.id = :jobId)
            select status, attempt, outcome, failure_reason,
                   (status = 'PUSHED' and worker_id = :workerId
                    and attempt = coalesce(cast(:attempt as integer), attempt)
                    and failure_reason is not distinct from
                        (case when :outcome = 'FAILURE' then 'WORKER_REPORTED' end)
                    and outcome = :outcome
                    and result is not distinct from cast(:result as jsonb)
                    and acquires is not distinct from cast(:acquires as jsonb)
                    and db_updates is not distinct from cast(:dbUpdates as jsonb)
                    and error is not distinct from cast(:error as jsonb)) or retried_repeat as repeated,
                   (status = 'PUSHED' and worker_id = :workerId
                    and attempt = coalesce(cast(:attempt as integer), attempt)
                    and (outcome = 'SUCCESS' or failure_reason = 'WORKER_REPORTED')) or retried_mine as mine
              from found
            """;

    private final JdbcClient jdbc;

    PushStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** The pushed job, or empty when this push changed nothing (see {@link #verdict}). */
    Optional<JobView> push(Push push, boolean resultChecked) {
        return push.bind(jdbc.sql(JOB_PUSH)).param("resultChecked", resultChecked).query(JobRows::view).optional();
    }

    /** The jobs the batch of these workers' pushes pushed, by their position in the batch ({@code ord} of each row). */
    Map<Integer, JobView> pushBatch(Collection<UUID> workerIds, String pushesJson) {
        Map<Integer, JobView> pushed = new HashMap<>();
        jdbc.sql(JOB_PUSH_BATCH).param("workerIds", SqlArrays.uuids(workerIds)).param("pushes", pushesJson)
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
