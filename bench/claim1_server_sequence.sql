-- Not the ceiling: the server's own statements for one job, through pgbench, to split the gap
-- between the server and claim1.sql into "SQL" and "HTTP + Java". The server's poll is
-- ClaimStore.WORKER_POLL then JOB_CLAIM in one transaction (three round trips); here the worker
-- update is a CTE of the claim, the same work in one round trip. The push is JOB_PUSH on its
-- own. The worker and the timeout are parameters and the limit a literal, as the server binds
-- them. Needs worker rows whose ids are lpad(client_id, 32, '0'), serving the benchmark's block
-- (the driver registers them).
\set timeout 720000
with locked as (
    update worker set last_polled_at = now()
     where id = cast(lpad(cast(:client_id as text), 32, '0') as uuid) and deleted_at is null
    returning id),
w as materialized (
    select w.state, w.directive, w.concurrency, w.labels,
           array(select function_block_id from worker_function_block where worker_id = w.id) as served
      from worker w
     where w.id = (select id from locked) and w.deleted_at is null),
ask as materialized (
    select coalesce(cast(null as uuid[]), w.served) as blocks,
           w.state = 'ONLINE' and w.directive = 'RUN'
               and coalesce(cast(null as uuid[]) <@ w.served, true) as eligible
      from w),
picked as materialized (
    select p.id
      from w cross join ask
      cross join unnest(case when ask.eligible then ask.blocks end) as fb(id)
      cross join lateral (
          select j.id, j.priority, j.created_at
            from job j
           where j.function_block_id = fb.id and j.status = 'PENDING' and j.selector <@ w.labels
           order by j.priority desc, j.created_at, j.id
           limit 1
             for update skip locked) p
     order by p.priority desc, p.created_at, p.id
     limit greatest(0, least(1, (select concurrency from w) -
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
select coalesce(min(cast(j.id as text)), '00000000-0000-0000-0000-000000000000') as id,
       coalesce(min(j.attempt), 0) as attempt
  from w left join claimed j on true
\gset
with pushed as (
    update job j
       set status = 'PUSHED', outcome = 'SUCCESS', failure_reason = null,
           result = cast('{"ok": true}' as jsonb), acquires = null, db_updates = null, error = null,
           pushed_at = now(), push_xid = pg_current_xact_id(), push_seq = nextval('job_push_seq')
     where j.id = cast(:id as uuid) and j.worker_id = cast(lpad(cast(:client_id as text), 32, '0') as uuid)
       and j.status = 'POLLED' and j.attempt = :attempt
       and (not exists (select 1 from function_block fb
                         where fb.id = j.function_block_id and fb.result_data_json_schema is not null))
    returning j.*),
events as (
    insert into job_event (job_id, kind, attempt, worker_id, actor, detail)
    select id, 'PUSHED', attempt, worker_id, 'worker', outcome from pushed)
select count(*) from pushed;
