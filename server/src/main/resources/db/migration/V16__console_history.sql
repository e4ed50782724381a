-- The console's history (issue 26): what the dashboard's charts draw, one row a minute, written by
-- the history rollup (HistoryRollup) just after each minute ends, by whichever replica takes the
-- pass's advisory lock. In PostgreSQL, so every replica draws the same picture and a restart
-- loses nothing: a minute missed while no server ran is rolled up later from the audit trail
-- (counts and percentiles); only its snapshots (queue depth, workers by state) are absent.
-- Rows are kept 8 days.

-- One row per rolled-up minute, across function blocks: its existence says the minute is done.
create table history_minute (
    minute               timestamptz primary key check (minute = date_trunc('minute', minute)),
    -- jobs created in the minute, and jobs ended in it (became PUSHED) by outcome: the sums of its blocks' rows
    created              integer     not null default 0 check (created >= 0),
    succeeded            integer     not null default 0 check (succeeded >= 0),
    failed               integer     not null default 0 check (failed >= 0),
    cancelled            integer     not null default 0 check (cancelled >= 0),
    -- claims made in the minute, and the time each job waited for it: from when it became
    -- claimable (created, due at its run_at, re-queued, released, re-run) to the claim
    claims               integer     not null check (claims >= 0),
    claim_p50_ms         double precision,
    claim_p95_ms         double precision,
    claim_p99_ms         double precision,
    -- attempts that ended in the minute with a worker's result, and how long each ran (claim to result)
    runs                 integer     not null check (runs >= 0),
    run_p50_ms           double precision,
    run_p95_ms           double precision,
    run_p99_ms           double precision,
    -- whether the depth and the workers were counted just after the minute ended (false: caught up later)
    snapshot             boolean     not null,
    workers_online       integer,
    workers_unreachable  integer,
    workers_offline      integer,
    rolled_at            timestamptz not null default now(),
    constraint history_minute_snapshot check (snapshot = (workers_online is not null
        and workers_unreachable is not null and workers_offline is not null))
);

-- Per function block and minute: jobs created, jobs ended by outcome, and the queue depth at the
-- snapshot. Only blocks with something to count have a row: at a snapshot minute, a block without
-- one had no job PENDING or POLLED.
create table history_block_minute (
    minute             timestamptz not null references history_minute (minute) on delete cascade,
    -- no foreign key: history outlives a function block removed by hand (its rows are then not shown),
    -- and does not stand in the way of emptying the catalog
    function_block_id  uuid        not null,
    created            integer     not null default 0 check (created >= 0),
    succeeded          integer     not null default 0 check (succeeded >= 0),
    failed             integer     not null default 0 check (failed >= 0),
    cancelled          integer     not null default 0 check (cancelled >= 0),
    pending            integer     check (pending >= 0),
    polled             integer     check (polled >= 0),
    primary key (minute, function_block_id)
);

-- The rollup reads a minute of claims and results by time. job_event had no index on at; this
-- one covers only the kinds the rollup reads (the claim and the three ends of an attempt with a
-- worker's result), so the events of creation, progress and scheduling pay nothing for it. A claim
-- and a push each insert one more entry, at the right edge of the index (at is the transaction's
-- time: nearly increasing), the cheapest place a b-tree takes an entry. Measured on 2M events:
-- about 70 bytes more WAL per indexed event (385 -> 452 for a one-row insert; a claim or a push
-- statement writes several times that for the job row and its indexes) and no time difference
-- that stood out of the noise for 20,000 one-row inserts, 3% for a bulk insert. A BRIN index
-- would cost less to write, but the retention reaper's deletes let new events fill old pages,
-- which widens every block range's bounds until the index reads most of the table.
create index job_event_at on job_event (at) where kind in ('CLAIMED', 'PUSHED', 'RETRYING', 'PARKED');
