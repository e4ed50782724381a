-- Raw-SQL ceiling, one job per round trip, the least SQL a correct claim + complete needs on
-- this table: the claim and the complete of a queue library (pg-boss, graphile-worker style),
-- each one autocommitted statement. No audit rows (job_event), no worker row, no selector, no
-- concurrency cap, no result-schema check. The claim takes the first PENDING job of the block
-- in claim order (the job_claim index, skipping rows other clients hold) and sets what the
-- job_polled_shape check requires. The complete is fenced on that claim (still POLLED, same
-- attempt: a cancelled or re-claimed job is left alone) and sets what job_pushed_shape requires,
-- push_xid and push_seq included (the result feed's order). The select around the claim only
-- gives \gset one row when the queue is empty (pgbench aborts a client on none).
-- :fb is the function block, :client_id makes the worker id.
with claimed as (
    update job
       set status = 'POLLED', worker_id = cast(lpad(cast(:client_id as text), 32, '0') as uuid),
           polled_at = now(), deadline = now() + interval '12 minutes', attempt = attempt + 1
     where id = (select id
                   from job
                  where function_block_id = :fb and status = 'PENDING'
                  order by priority desc, created_at, id
                  limit 1
                    for update skip locked)
    returning id, attempt)
select coalesce(min(cast(id as text)), '00000000-0000-0000-0000-000000000000') as id,
       coalesce(min(attempt), 0) as attempt
  from claimed
\gset
update job
   set status = 'PUSHED', outcome = 'SUCCESS', result = cast('{"ok": true}' as jsonb), pushed_at = now(),
       push_xid = pg_current_xact_id(), push_seq = nextval('job_push_seq')
 where id = cast(:id as uuid) and status = 'POLLED' and attempt = :attempt;
