-- Progress a worker reports on a job it holds (issue 24): a percentage and a short message,
-- on the job and, each time it is recorded, as a PROGRESS event. It extends the job's lease
-- as a heartbeat that lists the job would.

alter table job add column progress_percent smallint check (progress_percent between 0 and 100);
alter table job add column progress_message text check (length(progress_message) <= 200);
alter table job add column progress_at timestamptz;

alter table job_event drop constraint job_event_kind_check;
alter table job_event add constraint job_event_kind_check check (kind in
    ('CREATED', 'CLAIMED', 'PUSHED', 'FAILED', 'REQUEUED', 'RELEASED', 'CANCELLED', 'RETRYING', 'DUE',
     'PARKED', 'RERUN', 'DISCARDED', 'PROGRESS'));
