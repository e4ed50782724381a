-- A vacuum that finds a table empty truncates it to no pages and records it as holding no rows:
-- every job finished and past its retention, the workers all gone, the benchmark's scaffolding
-- deleted. PostgreSQL then plans a read of the table as a scan of nothing, and a connection that
-- prepares a statement then keeps that plan as the table fills again, until the next ANALYZE of
-- it: the benchmark caught every ping reading the whole job table for its worker's held jobs,
-- and its mixed load fell from about 1,400 to 100 jobs/s. Kept, the pages make a scan of the
-- table cost what it did, and the plans keep their index probes (WorkerStoreTest,
-- ClaimStoreTest). The space stays the table's, for the rows to come; and no vacuum takes the
-- ACCESS EXCLUSIVE lock that truncation needs, which stalls every request on the table.
alter table job set (vacuum_truncate = false);
alter table job_event set (vacuum_truncate = false);
alter table worker set (vacuum_truncate = false);
alter table worker_function_block set (vacuum_truncate = false);
