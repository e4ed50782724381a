-- job_backoff (V8) raised "value out of range: overflow" once multiplier^(spent-1) passed what a
-- float8 holds (spent about 310 at multiplier 10), which a dead letter re-run many times can
-- reach. The power is now taken as exp of a capped logarithm: past the cap the backoff is long
-- since maxIntervalMs anyway.
create or replace function job_backoff(policy jsonb, spent integer)
    returns interval language sql volatile as $$
    select make_interval(secs => least(
               (policy ->> 'maxIntervalMs')::float8,
               (policy ->> 'initialIntervalMs')::float8
                   * exp(least((spent - 1) * ln((policy ->> 'multiplier')::float8), 600)))
           * (1 - coalesce((policy ->> 'jitter')::float8, 0) * random()) / 1000)
$$;
