-- Scheduled jobs and retries of reported failures (issue 24).
--
-- A job that may not run before its time is stored as status SCHEDULED: the API shows it as
-- PENDING with "scheduled": true. Being its own status keeps it out of the claim's partial
-- index (job_claim: status = 'PENDING'), so claims never walk jobs that are not due yet however
-- many are scheduled, and every statement that reads claimable jobs stays as it was. When its
-- run_at passes, one statement (DueJobs) makes it PENDING and wakes the parked polls.

alter table job drop constraint job_status_check;
alter table job add constraint job_status_check
    check (status in ('SCHEDULED', 'PENDING', 'POLLED', 'PUSHED'));

-- when the job, or its next attempt, may run: set on a scheduled create and on a retry, kept after
alter table job add column run_at timestamptz;
-- the retry policy of reported failures, as created (or the function block's): null, none
alter table job add column retry_policy jsonb
    check (retry_policy is null or jsonb_typeof(retry_policy) = 'object');
-- every reported failure of every attempt: [{attempt, workerId, error, at}], oldest first
alter table job add column errors jsonb not null default '[]' check (jsonb_typeof(errors) = 'array');

alter table job add constraint job_scheduled_shape check (status <> 'SCHEDULED'
    or (run_at is not null and worker_id is null and polled_at is null and deadline is null
        and outcome is null and pushed_at is null));

-- what DueJobs reads: the next time a job falls due, and the jobs due now; the block is
-- included so the catalog counts scheduled jobs per block from this index alone
create index job_scheduled on job (run_at) include (function_block_id) where status = 'SCHEDULED';

-- a function block's default retry policy, for jobs created without their own
alter table function_block add column retry_policy jsonb
    check (retry_policy is null or jsonb_typeof(retry_policy) = 'object');

alter table job_event drop constraint job_event_kind_check;
alter table job_event add constraint job_event_kind_check check (kind in
    ('CREATED', 'CLAIMED', 'PUSHED', 'FAILED', 'REQUEUED', 'RELEASED', 'CANCELLED', 'RETRYING', 'DUE'));

-- Whether a reported failure runs again: a policy, attempts left (spent counts the attempt that
-- failed), and an error neither listed in nonRetryableErrors (by its "code", exactly or by a
-- prefix ending in *) nor saying "retryable": false.
create function job_retries(policy jsonb, spent integer, max_attempts integer, error jsonb)
    returns boolean language sql immutable as $$
    select policy is not null and spent < max_attempts
       and error -> 'retryable' is distinct from 'false'::jsonb
       and not exists (
           select 1 from jsonb_array_elements_text(coalesce(policy -> 'nonRetryableErrors', '[]')) as code(c)
            where jsonb_typeof(error) = 'object'
              and (error ->> 'code' = code.c
                   or (right(code.c, 1) = '*' and starts_with(error ->> 'code', left(code.c, -1)))))
$$;

-- The wait before the next attempt after the spent-th failed: initialIntervalMs *
-- multiplier^(spent-1), at most maxIntervalMs, less up to a jitter share of it at random.
create function job_backoff(policy jsonb, spent integer)
    returns interval language sql volatile as $$
    select make_interval(secs => least(
               (policy ->> 'maxIntervalMs')::float8,
               (policy ->> 'initialIntervalMs')::float8 * power((policy ->> 'multiplier')::float8, spent - 1))
           * (1 - coalesce((policy ->> 'jitter')::float8, 0) * random()) / 1000)
$$;
