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

    /** The push's event: PUSHED with the outcome, RETRYING with when the next attempt may run, or PARKED. */
    private static final String EVENTS = """

                insert into job_event (job_id, kind, attempt, worker_id, actor, detail)
                select id, case status when 'SCHEDULED' then 'RETRYING' when 'PARKED' then 'PARKED' else 'PUSHED' end,
                       attempt, cast(:workerId as uuid), 'worker',
                       case status when 'SCHEDULED' then 'FAILURE, retry at ' || run_at
                                   when 'PARKED' then 'FAILURE, parked as a dead letter' else outcome end
                  from pushed""";

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
            """.formatted(landing(":outcome", "cast(:result as jsonb)", "cast(:acquires as jsonb)",
                    "cast(:dbUpdates as jsonb)", "cast(:error as jsonb)"), EVENTS, JobRows.COLUMNS);

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
                   set %s
                  from input x
                 where j.id = x.job_id and j.worker_id = :workerId and j.status = 'POLLED'
                   and j.attempt = coalesce(x.attempt, j.attempt)
                   and (x.outcome <> 'SUCCESS' or j.type <> 'EXECUTE' or x.checked or not exists (
                        select 1 from function_block fb
                         where fb.id = j.function_block_id and fb.result_data_json_schema is not null))
                returning j.*, x.ord),
            events as (%s)
            select j.ord, %s from pushed j
            """.formatted(landing("x.outcome", "x.result", "x.acquires", "x.db_updates", "x.error"), EVENTS,
                    JobRows.COLUMNS);

    /**
     * What a push writes on the job it lands on, given its outcome and documents as SQL. A
     * FAILURE is added to the job's {@code errors} (the last 100 kept: every attempt a policy
     * allows; only re-runs of a dead letter go past it), with the {@code acquires} and {@code dbUpdates}
     * it reported (what a retried attempt took or changed must still reach the engine's rollback;
     * the job keeps the latest attempt's too). A FAILURE under a retry policy is kept
     * unended ({@code kept}) when the policy retries it ({@code job_retries},
     * V8__scheduled_jobs_and_retries.sql: back as SCHEDULED for the backoff of
     * {@code job_backoff}, keeping its attempt count) or, when it is final, parks dead letters
     * (onExhausted PARK: PARKED, outside the feed). Otherwise the job becomes PUSHED with the
     * outcome. {@code j} is the row before the update.
     */
    private static String landing(String outcome, String result, String acquires, String dbUpdates, String error) {
        return """
                status = case when {kept} then (case when {retry} then 'SCHEDULED' else 'PARKED' end)
                                else 'PUSHED' end,
                       outcome = case when {kept} then null else {outcome} end,
                       failure_reason = case when {outcome} = 'FAILURE' and not {kept} then 'WORKER_REPORTED' end,
                       result = {result}, acquires = {acquires}, db_updates = {dbUpdates},
                       error = {error},
                       errors = case when {outcome} = 'FAILURE' then jsonb_path_query_array(
                                j.errors || jsonb_build_array(jsonb_strip_nulls(
                                    jsonb_build_object('attempt', j.attempt, 'workerId', j.worker_id, 'at', now(),
                                                       'acquires', {acquires}, 'dbUpdates', {dbUpdates}))
                                    || jsonb_build_object('error', {error})),
                                '$[last - 99 to last]')
                                else j.errors end,
                       worker_id = case when {kept} then null else j.worker_id end,
                       polled_at = case when {kept} then null else j.polled_at end,
                       deadline = case when {kept} then null else j.deadline end,
                       run_at = case when {kept} and {retry} then now() + job_backoff(j.retry_policy, j.attempt - j.releases)
                                else j.run_at end,
                       pushed_at = case when {kept} then null else now() end,
                       push_xid = case when {kept} then null else pg_current_xact_id() end,
                       push_seq = case when {kept} then null else nextval('job_push_seq') end"""
                .replace("{kept}", "({outcome} = 'FAILURE' and j.retry_policy is not null and ({retry}"
                        + " or j.retry_policy @> '{\"onExhausted\": \"PARK\"}'))")
                .replace("{retry}", "job_retries(j.retry_policy, j.attempt - j.releases, j.max_attempts, {error})")
                .replace("{outcome}", outcome).replace("{result}", result).replace("{acquires}", acquires)
                .replace("{dbUpdates}", dbUpdates).replace("{error}", error);
    }

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
