-- Not the ceiling: the server's own statement sequence for one job, through pgbench, to split
-- the gap between the server and claim1.sql into "SQL sequence" and "HTTP + Java". The poll is
-- a transaction of ClaimStore.WORKER_POLL then JOB_CLAIM; the push is JOB_PUSH on its own.
-- Parameterized as the server binds it (block array, labels, limit, concurrency, timeout are
-- parameters, so PostgreSQL plans the claim afresh on every execution, as it does for the
-- server). Needs worker rows whose ids are lpad(client_id, 32, '0'), serving :fb; -D fbs={fb}
-- and -D labels={} on the command line.
\set lim 1
\set conc 1000
\set timeout 720000
begin;
update worker w set last_polled_at = now()
 where w.id = cast(lpad(cast(:client_id as text), 32, '0') as uuid) and w.deleted_at is null
returning w.state, w.directive, w.concurrency, w.labels::text as labels,
          array(select function_block_id from worker_function_block
                 where worker_id = w.id)::text[] as function_block_ids;
with picked as materialized (
    select p.id
      from unnest(cast(:fbs as uuid[])) as fb(id)
      cross join lateral (
          select j.id, j.priority, j.created_at
            from job j
           where j.function_block_id = fb.id and j.status = 'PENDING'
             and j.selector <@ cast(:labels as jsonb)
           order by j.priority desc, j.created_at, j.id
           limit :lim
             for update skip locked) p
     order by p.priority desc, p.created_at, p.id
     limit greatest(0, least(:lim, :conc -
           (select count(*) from job h
             where h.worker_id = cast(lpad(cast(:client_id as text), 32, '0') as uuid) and h.status = 'POLLED')))),
claimed as (
    update job j
       set status = 'POLLED', worker_id = cast(lpad(cast(:client_id as text), 32, '0') as uuid), polled_at = now(),
           deadline = now() + :timeout * interval '1 millisecond', attempt = j.attempt + 1
      from picked
     where j.id = picked.id and j.status = 'PENDING'
    returning j.*),
events as (
    insert into job_event (job_id, kind, attempt, worker_id, actor)
    select id, 'CLAIMED', attempt, worker_id, 'worker' from claimed)
select coalesce(min(cast(id as text)), '00000000-0000-0000-0000-000000000000') as id,
       coalesce(min(attempt), 0) as attempt
  from claimed
\gset
commit;
with pushed as (
    update job j
       set status = 'PUSHED', outcome = 'SUCCESS', failure_reason = null,
           result = cast('{"ok": true}' as jsonb), acquires = null, db_updates = null, error = null,
           pushed_at = now(), push_xid = pg_current_xact_id(), push_seq = nextval('job_push_seq')
     where j.id = cast(:id as uuid) and j.worker_id = cast(lpad(cast(:client_id as text), 32, '0') as uuid)
       and j.status = 'POLLED' and j.attempt = :attempt
    returning j.*),
events as (
    insert into job_event (job_id, kind, attempt, worker_id, actor, detail)
    select id, 'PUSHED', attempt, worker_id, 'worker', outcome from pushed)
select count(*) from pushed;
