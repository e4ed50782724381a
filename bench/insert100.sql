-- Raw-SQL ceiling of the bulk enqueue: 100 job rows in one insert statement per autocommitted
-- transaction, with what the table requires (id, function block, type) and the driver's payload;
-- every other column is its default, as the server's for a job created PENDING (whose CREATED
-- event is read from its row, not written). Ids as in insert1.sql: counting up per client from :base, clear of every other id, at
-- the right edge of the primary key. :fb is the function block.
\set n :n + 1
\set first :base + :client_id * 4294967296 + :n * 100
insert into job (id, function_block_id, type, payload)
select cast(lpad(to_hex(cast(:first as bigint) + i), 32, '0') as uuid), cast(:fb as uuid), 'EXECUTE',
       cast('{"n": 1}' as jsonb)
  from generate_series(1, 100) i;
