-- The worker SDK a worker runs (issue 21): its name and version, as it says at registration.
alter table worker
    add column sdk_name text check (char_length(sdk_name) between 1 and 100),
    add column sdk_version text check (char_length(sdk_version) between 1 and 100);
