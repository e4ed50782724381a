-- Raw-SQL ceiling of the single enqueue: one job row per autocommitted statement, with what the
-- table requires (id, function block, type) and the driver's payload; every other column is its
-- default, as the server's for a job created PENDING (no CREATED row: read from the job's). The ids count up per client
-- from :base (the driver's, clear of every other id), so each lands at the right edge of the
-- primary key as the server's time-ordered ids do. pgbench variables live across transactions:
-- :n is the client's count, from -D n=0. :fb is the function block.
\set n :n + 1
\set id :base + :client_id * 4294967296 + :n
insert into job (id, function_block_id, type, payload)
values (cast(lpad(to_hex(cast(:id as bigint)), 32, '0') as uuid), cast(:fb as uuid), 'EXECUTE',
        cast('{"n": 1}' as jsonb));
