-- Fewer index entries per job (issue 23). The unique constraint on idempotency_key (V2) kept an
-- entry for every job, a NULL for each of the many created without a key, and a job's row is
-- never updated HOT (its status is in the partial indexes' predicates), so each claim and each
-- push wrote that NULL entry again, all of them at the index's right edge. A NULL key is unique
-- in either index (NULLs are distinct), so only the jobs with a key need an entry: the same
-- guarantee with one index entry less for every keyless job's insert, claim and push.
-- The table is locked first, for the whole change: taking the build's lock and then the drop's
-- could deadlock with a replica still writing jobs.
lock table job in access exclusive mode;
create unique index job_idempotency_key_of_keys on job (idempotency_key) where idempotency_key is not null;
alter table job drop constraint job_idempotency_key;
alter index job_idempotency_key_of_keys rename to job_idempotency_key;
