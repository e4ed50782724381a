-- Workers and the function blocks they serve.

create table worker (
    id                 uuid        primary key,
    name               text        not null check (length(name) between 1 and 200),
    hostname           text        check (length(hostname) <= 255),
    ip                 text        check (length(ip) <= 64),
    pid                integer     check (pid >= 0),
    version            text        check (length(version) <= 100),
    labels             jsonb       not null default '{}' check (jsonb_typeof(labels) = 'object'),
    concurrency        integer     not null default 1 check (concurrency between 1 and 10000),
    state              text        not null default 'ONLINE'
                                   check (state in ('ONLINE', 'UNREACHABLE', 'OFFLINE')),
    directive          text        not null default 'RUN'
                                   check (directive in ('RUN', 'QUIET', 'TERMINATE')),
    registered_at      timestamptz not null default now(),
    last_seen_at       timestamptz not null default now(),
    -- when the worker entered its current state: the OFFLINE delete threshold counts from here
    state_changed_at   timestamptz not null default now(),
    last_polled_at     timestamptz,
    deleted_at         timestamptz,
    -- a deleted worker is always OFFLINE: it holds no jobs and gets none
    constraint worker_deleted_is_offline check (deleted_at is null or state = 'OFFLINE')
) with (fillfactor = 80);
-- Pings rewrite last_seen_at many times a second at scale: no index may cover it,
-- so those updates stay HOT. The liveness sweeper scans the (small) table instead.
create index worker_state on worker (state) where deleted_at is null;

create table function_block (
    id                       uuid        primary key,
    name                     text        not null check (length(name) between 1 and 200),
    version                  text        not null check (length(version) between 1 and 100),
    params_json_schema       jsonb,
    result_data_json_schema  jsonb,
    pure                     boolean     not null default false,
    idempotent               boolean     not null default false,
    description              text        check (length(description) <= 10000),
    created_at               timestamptz not null default now(),
    constraint function_block_name_version unique (name, version)
);

create table worker_function_block (
    worker_id          uuid not null references worker (id) on delete cascade,
    function_block_id  uuid not null references function_block (id),
    primary key (worker_id, function_block_id)
);
create index worker_function_block_by_block on worker_function_block (function_block_id);
