-- The blackboard: jobs, their audit trail, and the order of the result feed.

-- Orders pushes inside one transaction; the feed orders by (push_xid, push_seq).
create sequence job_push_seq cache 50;

create table job (
    id                 uuid        primary key,
    function_block_id  uuid        not null references function_block (id),
    type               text        not null check (type in ('ACQUIRE', 'EXECUTE', 'ROLLBACK')),
    status             text        not null default 'PENDING' check (status in ('PENDING', 'POLLED', 'PUSHED')),
    payload            jsonb       not null default '{}',
    priority           integer     not null default 0,
    max_attempts       integer     not null default 1 check (max_attempts between 1 and 100),
    -- attempt counts claims: it is the fencing token of the live claim
    attempt            integer     not null default 0 check (attempt >= 0),
    -- claims given back because their response never reached the worker: not a spent attempt
    releases           integer     not null default 0 check (releases between 0 and attempt),
    -- no foreign key: workers are soft-deleted and the job keeps who ran it
    worker_id          uuid,
    selector           jsonb       not null default '{}' check (jsonb_typeof(selector) = 'object'),
    correlation_id     text        check (length(correlation_id) <= 200),
    idempotency_key    text        check (length(idempotency_key) <= 200),
    created_at         timestamptz not null default now(),
    polled_at          timestamptz,
    deadline           timestamptz,
    pushed_at          timestamptz,
    outcome            text        check (outcome in ('SUCCESS', 'FAILURE', 'CANCELLED')),
    failure_reason     text        check (failure_reason in
                                       ('WORKER_REPORTED', 'STUCK_TIMEOUT', 'WORKER_OFFLINE', 'WORKER_DELETED')),
    result             jsonb,
    acquires           jsonb,
    db_updates         jsonb,
    error              jsonb,
    push_xid           xid8,
    push_seq           bigint,
    constraint job_idempotency_key unique (idempotency_key),
    constraint job_attempts_within_max check (attempt - releases <= max_attempts),
    constraint job_pending_shape check (status <> 'PENDING'
        or (worker_id is null and polled_at is null and deadline is null and outcome is null and pushed_at is null)),
    constraint job_polled_shape check (status <> 'POLLED'
        or (worker_id is not null and polled_at is not null and deadline is not null and attempt >= 1
            and outcome is null and pushed_at is null)),
    constraint job_pushed_shape check ((status = 'PUSHED') =
        (outcome is not null and pushed_at is not null and push_xid is not null and push_seq is not null)),
    constraint job_failure_has_reason check (
        (outcome = 'FAILURE' and failure_reason is not null)
        or (outcome is distinct from 'FAILURE' and failure_reason is null))
) with (fillfactor = 90,
        autovacuum_vacuum_scale_factor = 0.02,
        autovacuum_analyze_scale_factor = 0.02,
        autovacuum_vacuum_insert_scale_factor = 0.05);

-- Claim order per function block: one short index probe per requested block,
-- however deep other blocks' backlogs grow.
create index job_claim on job (function_block_id, priority desc, created_at, id) where status = 'PENDING';
create index job_by_worker on job (worker_id, status) where worker_id is not null;
create index job_deadline on job (deadline) where status = 'POLLED';
create index job_feed on job (push_xid, push_seq) where status = 'PUSHED';
create index job_pushed_at on job (pushed_at) where status = 'PUSHED';
create index job_created on job (created_at, id);
create index job_correlation on job (correlation_id) where correlation_id is not null;

-- Every transition after creation, written by the statement that makes it.
create table job_event (
    id          bigint      generated always as identity primary key,
    job_id      uuid        not null,
    kind        text        not null check (kind in
                                ('CREATED', 'CLAIMED', 'PUSHED', 'FAILED', 'REQUEUED', 'RELEASED', 'CANCELLED')),
    attempt     integer     not null,
    worker_id   uuid,
    actor       text        not null check (length(actor) <= 100),
    detail      text        check (length(detail) <= 1000),
    at          timestamptz not null default now()
);
create index job_event_by_job on job_event (job_id, id);
-- A claim is the start of an attempt: no attempt of a job can be claimed twice.
create unique index job_event_claimed_once on job_event (job_id, attempt) where kind = 'CLAIMED';
