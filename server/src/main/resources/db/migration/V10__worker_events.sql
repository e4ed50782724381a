-- A worker's history (issue 24): every change of its state, directive or existence, written by
-- the statement that makes the change (WorkerStore), on the database clock. Heartbeats that
-- change nothing write nothing.
--
-- The events of one worker are written only by a statement that holds that worker's row lock
-- (its update, or the lock of a re-registration), so their ids follow their commit order: a
-- reader paging by id after the last one it saw never skips one committed later.

create table worker_event (
    id                 bigint      generated always as identity primary key,
    -- a worker row is never deleted by the server (deletion is soft); deleted by hand, its history goes too
    worker_id          uuid        not null references worker (id) on delete cascade,
    kind               text        not null check (kind in
                           ('REGISTERED', 'ONLINE', 'UNREACHABLE', 'OFFLINE', 'DIRECTIVE', 'DELETED',
                            'REREGISTERED')),
    -- the worker's state and directive after the event; from_*: before it, where the event changed it
    state              text        not null check (state in ('ONLINE', 'UNREACHABLE', 'OFFLINE')),
    from_state         text        check (from_state in ('ONLINE', 'UNREACHABLE', 'OFFLINE')),
    directive          text        not null check (directive in ('RUN', 'QUIET', 'TERMINATE')),
    from_directive     text        check (from_directive in ('RUN', 'QUIET', 'TERMINATE')),
    -- REGISTERED: the deleted worker it replaces; REREGISTERED: the new worker that replaced this one
    related_worker_id  uuid,
    -- who made the change: worker, operator or sweeper
    actor              text        not null check (length(actor) between 1 and 100),
    -- why, for a person: the request, or the silence that the sweeper saw
    detail             text        check (length(detail) <= 1000),
    at                 timestamptz not null default now(),
    constraint worker_event_changes check (from_state is distinct from state
                                           and from_directive is distinct from directive),
    -- a liveness event is named for the state it led to, from another
    constraint worker_event_liveness check (kind not in ('ONLINE', 'UNREACHABLE', 'OFFLINE')
                                            or (state = kind and from_state is not null)),
    constraint worker_event_directive check (kind <> 'DIRECTIVE' or from_directive is not null),
    constraint worker_event_deleted check (kind not in ('DELETED', 'REREGISTERED') or state = 'OFFLINE'),
    constraint worker_event_related check (kind <> 'REREGISTERED' or related_worker_id is not null)
);
-- one worker's history in order, and the cascade of a hand-made delete
create index worker_event_by_worker on worker_event (worker_id, id);
-- the retention's reaper (WorkerEventReaper): the oldest first
create index worker_event_at on worker_event (at);
