-- Raw-SQL ceiling, one job per round trip: the server's claim statement (ClaimStore.JOB_CLAIM,
-- one function block, limit 1), then the server's push (PushStore.JOB_PUSH), each committed
-- on its own as the server does. :fb is the function block, :client_id makes the worker id.
with picked as materialized (
    select p.id
      from unnest(cast(array[:fb] as uuid[])) as fb(id)
      cross join lateral (
          select j.id, j.priority, j.created_at
            from job j
           where j.function_block_id = fb.id and j.status = 'PENDING'
             and j.selector <@ cast('{}' as jsonb)
           order by j.priority desc, j.created_at, j.id
           limit 1
             for update skip locked) p
     order by p.priority desc, p.created_at, p.id
     limit greatest(0, least(1, 1000 -
           (select count(*) from job h
             where h.worker_id = cast(lpad(cast(:client_id as text), 32, '0') as uuid) and h.status = 'POLLED')))),
claimed as (
    update job j
       set status = 'POLLED', worker_id = cast(lpad(cast(:client_id as text), 32, '0') as uuid), polled_at = now(),
           deadline = now() + 720000 * interval '1 millisecond', attempt = j.attempt + 1
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
