-- ClaimStore.JOB_CLAIM as the server runs it for one function block and limit 1, under
-- EXPLAIN (ANALYZE, BUFFERS), rolled back. psql variables: fb, wid.
begin;
explain (analyze, buffers)
with picked as materialized (
    select p.id
      from unnest(cast(array[:'fb'] as uuid[])) as fb(id)
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
           (select count(*) from job h where h.worker_id = cast(:'wid' as uuid) and h.status = 'POLLED')))),
claimed as (
    update job j
       set status = 'POLLED', worker_id = cast(:'wid' as uuid), polled_at = now(),
           deadline = now() + 720000 * interval '1 millisecond', attempt = j.attempt + 1
      from picked
     where j.id = picked.id and j.status = 'PENDING'
    returning j.*),
events as (
    insert into job_event (job_id, kind, attempt, worker_id, actor)
    select id, 'CLAIMED', attempt, worker_id, 'worker' from claimed)
select * from claimed;
rollback;
