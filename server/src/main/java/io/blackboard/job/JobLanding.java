package io.blackboard.job;

/**
 * What a worker's result writes on the job it lands on, as SQL fragments for a statement's
 * {@code SET} and its audit event: shared by the native push ({@link PushStore}) and the OJS
 * binding's ack and nack, so a result lands the same way whichever protocol brings it.
 */
public final class JobLanding {

    private JobLanding() {
    }

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
    public static String set(String outcome, String result, String acquires, String dbUpdates, String error) {
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

    /**
     * The landing's event, read from a CTE {@code pushed} holding the updated rows: PUSHED with
     * the outcome, RETRYING with when the next attempt may run, or PARKED. {@code workerId} is the
     * SQL of the worker whose result it was.
     */
    public static String events(String workerId) {
        return """

                    insert into job_event (job_id, kind, attempt, worker_id, actor, detail)
                    select id, case status when 'SCHEDULED' then 'RETRYING' when 'PARKED' then 'PARKED' else 'PUSHED' end,
                           attempt, %s, 'worker',
                           case status when 'SCHEDULED' then 'FAILURE, retry at ' || run_at
                                       when 'PARKED' then 'FAILURE, parked as a dead letter' else outcome end
                      from pushed""".formatted(workerId);
    }
}
