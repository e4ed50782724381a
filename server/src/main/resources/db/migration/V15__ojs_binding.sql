-- The Open Job Spec binding (issue 25, docs/ojs.md): OJS jobs are jobs of this table, with
-- the same statuses, claims, pushes, sweepers and events as native ones. What OJS adds:

-- the queue an OJS job was enqueued to (null for native jobs), and the rest of its envelope:
-- args, meta, options as given, and the fields the spec says must survive (unknown ones too)
alter table job add column queue text
    check (length(queue) between 1 and 200 and queue ~ '^[a-z0-9][a-z0-9.-]*$');
alter table job add column ojs jsonb check (ojs is null or jsonb_typeof(ojs) = 'object');
alter table job add constraint job_ojs_has_queue check ((queue is null) = (ojs is null));

-- an OJS fetch claims by queue, in the order the queues are given, each in the claim order
create index job_queue_claim on job (queue, priority desc, created_at, id)
    where status = 'PENDING' and queue is not null;
-- the events of a queue (GET /ojs/v1/events) go from its jobs to their events
create index job_by_queue on job (queue, created_at) where queue is not null;

-- an OJS worker needs no registration: the id it chooses names a worker of its own, made on
-- its first fetch or heartbeat; a deleted one is made anew
alter table worker add column ojs_id text check (length(ojs_id) between 1 and 200);
create unique index worker_ojs_id on worker (ojs_id) where ojs_id is not null and deleted_at is null;

-- OJS's linear and constant backoffs beside the exponential one: the n-th retry waits
-- initial * n (linear) or initial (constant), capped as before
create or replace function job_backoff(policy jsonb, spent integer)
    returns interval language sql volatile as $$
    select make_interval(secs => least(
               (policy ->> 'maxIntervalMs')::float8,
               (policy ->> 'initialIntervalMs')::float8
                   * case policy ->> 'backoff'
                         when 'linear' then spent
                         when 'constant' then 1
                         else exp(least((spent - 1) * ln((policy ->> 'multiplier')::float8), 600)) end)
           * (1 - coalesce((policy ->> 'jitter')::float8, 0) * random()) / 1000)
$$;

-- a non-retryable error is named by its code, or (OJS jobs: nonRetryableTypes) by its type, as
-- OJS names errors; a native policy has no nonRetryableTypes, so native jobs match codes only
create or replace function job_retries(policy jsonb, spent integer, max_attempts integer, error jsonb)
    returns boolean language sql immutable as $$
    select policy is not null and spent < max_attempts
       and error -> 'retryable' is distinct from 'false'::jsonb
       and not exists (
           select 1 from (select c, error ->> 'code' as name
                            from jsonb_array_elements_text(coalesce(policy -> 'nonRetryableErrors', '[]')) as code(c)
                          union all
                          select c, error ->> 'type'
                            from jsonb_array_elements_text(coalesce(policy -> 'nonRetryableTypes', '[]')) as code(c))
                         as named
            where jsonb_typeof(error) = 'object'
              and (named.name = named.c
                   or (right(named.c, 1) = '*' and starts_with(named.name, left(named.c, -1)))))
$$;
