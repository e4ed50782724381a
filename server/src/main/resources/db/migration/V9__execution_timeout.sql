-- An execution timeout per job or function block (issue 24): a claim may run this long in all,
-- however often its worker extends the lease. The claim's deadline never passes
-- polled_at + execution_timeout_ms (the claim sets it so, lease extensions stop there), and the
-- stuck-jobs sweeper fails a job whose deadline passed there with EXECUTION_TIMEOUT instead of
-- STUCK_TIMEOUT, re-queued or final under the same rule.

alter table job add column execution_timeout_ms bigint check (execution_timeout_ms > 0);
alter table function_block add column execution_timeout_ms bigint check (execution_timeout_ms > 0);

alter table job drop constraint job_failure_reason_check;
alter table job add constraint job_failure_reason_check check (failure_reason in
    ('WORKER_REPORTED', 'STUCK_TIMEOUT', 'EXECUTION_TIMEOUT', 'WORKER_OFFLINE', 'WORKER_DELETED'));
