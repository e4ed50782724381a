-- GET /workers pages in registration order (issue 24): a page after a cursor is a range of this
-- index. registered_at never changes, so the index leaves a heartbeat's update HOT.
create index worker_registered on worker (registered_at, id);
