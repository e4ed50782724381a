-- Dead letters (issue 24): a job whose retry policy says onExhausted PARK does not fail when its
-- last attempt's reported failure is final; it parks (status PARKED), outside the result feed,
-- until an operator re-runs it (a new attempt, its history kept) or discards it (the FAILURE it
-- would have ended with). A parked job has not ended: no outcome, no place in the feed.

alter table job drop constraint job_status_check;
alter table job add constraint job_status_check
    check (status in ('SCHEDULED', 'PENDING', 'POLLED', 'PARKED', 'PUSHED'));

alter table job add constraint job_parked_shape check (status <> 'PARKED'
    or (worker_id is null and polled_at is null and deadline is null and outcome is null and pushed_at is null));

-- a re-run gives a parked job its policy's attempts again: the attempts spent so far stay counted
alter table job drop constraint job_max_attempts_check;
alter table job add constraint job_max_attempts_check check (max_attempts between 1 and 10000);

-- the dead-letter list, in id (creation) order, and the catalog's count per block; parked jobs are few
create index job_parked on job (id) include (function_block_id) where status = 'PARKED';

alter table job_event drop constraint job_event_kind_check;
alter table job_event add constraint job_event_kind_check check (kind in
    ('CREATED', 'CLAIMED', 'PUSHED', 'FAILED', 'REQUEUED', 'RELEASED', 'CANCELLED', 'RETRYING', 'DUE',
     'PARKED', 'RERUN', 'DISCARDED'));
