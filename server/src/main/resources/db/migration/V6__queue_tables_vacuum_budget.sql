-- job and job_event churn at the job rate: every job is inserted, claimed, pushed and, after
-- the retention, deleted, with an audit row for each step but the delete. Autovacuum's default
-- budget (cost limit 200 every 2 ms, shared by all its workers) dirties at most about 40 MB/s;
-- at about 2,400 jobs/s the vacuums of job grew from 8 to 20 s, dead rows and index entries
-- piled up between them, and throughput fell from 2,940 to about 2,200 jobs/s over 10 minutes
-- (BENCHMARKS.md). Ten times the budget for these two tables alone (a table with its own cost
-- limit is left out of the workers' shared budget), and job_event vacuumed at the same share
-- of dead rows as job instead of the default fifth.
alter table job set (autovacuum_vacuum_cost_limit = 2000);
alter table job_event set (autovacuum_vacuum_cost_limit = 2000,
                           autovacuum_vacuum_scale_factor = 0.02,
                           autovacuum_analyze_scale_factor = 0.02,
                           autovacuum_vacuum_insert_scale_factor = 0.05);
