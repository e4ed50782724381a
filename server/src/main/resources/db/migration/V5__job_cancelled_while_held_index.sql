-- A heartbeat that does not list its jobs asks which of its claims were cancelled lately
-- (JobLeaseStore.JOB_CANCELLED_WHILE_HELD). Without this index that read every job the worker
-- ever held that retention still keeps: 62,000 rows and 500 ms per ping after a few minutes of
-- a busy worker (BENCHMARKS.md), holding the worker's row lock and so its next poll meanwhile.
-- Cancellations of held jobs are few, so the index is small.
create index job_cancelled_while_held on job (worker_id, pushed_at)
    where outcome = 'CANCELLED' and polled_at is not null;
