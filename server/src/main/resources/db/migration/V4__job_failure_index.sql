-- The operator's "latest failures": newest FAILURE jobs first, without walking every PUSHED
-- success in the retention window. Failures are few, so the index is small.
create index job_failed on job (pushed_at desc, id desc) where outcome = 'FAILURE';
