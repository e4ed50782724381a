-- The operator's search (issue 26): each form of GET /operator/search reads an index. Ids are
-- primary keys and correlation ids have job_correlation (V2); these serve the rest.

-- A worker's name, case-insensitive, by prefix: a range of the lower-cased name in byte order.
-- Neither a name nor labels change on a heartbeat, so a ping's update stays HOT.
create index worker_name_lower on worker (lower(name) text_pattern_ops);

-- key=value: the workers whose labels contain the pair (labels @> '{"key": "value"}').
create index worker_labels on worker using gin (labels jsonb_path_ops);

-- The most recent failures of one reason. job_failed (V4) orders every failure by push time and
-- would walk past all the others to find a rare reason.
create index job_failed_by_reason on job (failure_reason, pushed_at desc, id desc) where outcome = 'FAILURE';
