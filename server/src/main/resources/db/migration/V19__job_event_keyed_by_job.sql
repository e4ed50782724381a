-- Fewer index entries per job (issue 23). Every event (three in a job's life: CREATED, CLAIMED,
-- PUSHED) took an entry in two unique-in-effect indexes: the primary key on id, which no
-- statement reads, and job_event_by_job (job_id, id), which every reader of a job's events and
-- the retention's delete read. id comes from an identity, so (job_id, id) is as unique as id:
-- it becomes the primary key (the table keeps one, as logical replication's deletes need), and
-- each event writes one entry less.
create unique index job_event_by_job_key on job_event (job_id, id);
alter table job_event drop constraint job_event_pkey;
drop index job_event_by_job;
alter table job_event add constraint job_event_by_job primary key using index job_event_by_job_key;
