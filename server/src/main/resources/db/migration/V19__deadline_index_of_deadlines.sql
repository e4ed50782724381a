-- The deadline index (V2) held the POLLED jobs under the predicate status = 'POLLED', so every
-- query for one worker's POLLED jobs (worker_id = ? and status = 'POLLED': the ping's check for
-- held jobs, the claim's concurrency count) could be planned on it, filtering every job in flight
-- by worker. PostgreSQL does so when its statistics were taken while few jobs were held (a quiet
-- night, a backlog not yet claimed): then each such query read all the jobs held since, until
-- the next ANALYZE. With the predicate naming the deadline too, only the queries that read
-- deadlines (the stuck-job and overrun sweeps: deadline < now(); the console's running jobs and
-- the counts of held jobs, which say deadline is not null) can use it; one worker's jobs are
-- always probed on job_by_worker. A POLLED job always has a deadline (job_polled_shape), so the
-- index holds the same entries.
-- The table is locked first, for the whole change: taking the build's lock and then the drop's
-- could deadlock with a replica still writing jobs.
lock table job in access exclusive mode;
create index job_deadline_of_polled on job (deadline) where status = 'POLLED' and deadline is not null;
drop index job_deadline;
alter index job_deadline_of_polled rename to job_deadline;
