-- Raw-SQL ceiling, 50 jobs per round trip: the server's claim statement (ClaimStore.JOB_CLAIM,
-- one function block, limit 50), then one push UPDATE for the 50 (the shape of
-- PushStore.JOB_PUSH over an id array), each committed on its own.
with picked as materialized (
    select p.id
      from unnest(cast(array[:fb] as uuid[])) as fb(id)
      cross join lateral (
          select j.id, j.priority, j.created_at
            from job j
           where j.function_block_id = fb.id and j.status = 'PENDING'
             and j.selector <@ cast('{}' as jsonb)
           order by j.priority desc, j.created_at, j.id
           limit 50
             for update skip locked) p
     order by p.priority desc, p.created_at, p.id
     limit greatest(0, least(50, 1000 -
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
select coalesce(cast(array_agg(id) as text), '{}') as ids from claimed
\gset
with pushed as (
    update job j
       set status = 'PUSHED', outcome = 'SUCCESS', failure_reason = null,
           result = cast('{"ok": true}' as jsonb), acquires = null, db_updates = null, error = null,
           pushed_at = now(), push_xid = pg_current_xact_id(), push_seq = nextval('job_push_seq')
     where j.id = any (cast(:ids as uuid[])) and j.worker_id = cast(lpad(cast(:client_id as text), 32, '0') as uuid)
       and j.status = 'POLLED'
    returning j.*),
events as (
    insert into job_event (job_id, kind, attempt, worker_id, actor, detail)
    select id, 'PUSHED', attempt, worker_id, 'worker', outcome from pushed)
select count(*) from pushed;
