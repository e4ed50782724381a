package io.blackboard.operator;

import io.blackboard.platform.sql.SqlArrays;
import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A large fleet seeded by SQL, one statement each, for the console's plan test and benchmark:
 * twenty function blocks, workers named worker-00001... with labels site=site-(n % 50) and rack=r(n), every one serving
 * one of the given blocks; jobs a second apart from 2026-01-01, like JobListPlanTest's: 4%
 * PENDING, 1% POLLED (one per worker), 90% SUCCESS, 5% FAILURE (one in a hundred of those
 * WORKER_DELETED, the others spread over four reasons), ten per correlation id wf-(n / 10).
 */
final class ConsoleFleet {

    private ConsoleFleet() {
    }

    /** Twenty function blocks block0@1.0.0 to block19@1.0.0, the workers, the jobs; the statistics fresh. */
    static void seed(JdbcClient jdbc, int workers, int jobs) {
        List<UUID> blocks = jdbc.sql("""
                insert into function_block (id, name, version)
                select gen_random_uuid(), 'block' || b, '1.0.0' from generate_series(0, 19) b
                returning id
                """).query(UUID.class).list();
        workers(jdbc, workers, blocks);
        jobs(jdbc, jobs, blocks);
    }

    private static void workers(JdbcClient jdbc, int workers, List<UUID> blocks) {
        jdbc.sql("""
                insert into worker (id, name, hostname, labels, concurrency, state, registered_at, state_changed_at)
                select gen_random_uuid(), 'worker-' || lpad(n::text, 5, '0'), 'host-' || n,
                       jsonb_build_object('site', 'site-' || (n % 50), 'rack', 'r' || n), 4,
                       case when n % 20 = 0 then 'OFFLINE' when n % 50 = 1 then 'UNREACHABLE' else 'ONLINE' end,
                       timestamptz '2025-12-01 00:00:00+00' + n * interval '1 second', now()
                  from generate_series(1, :workers) n
                """).param("workers", workers).update();
        jdbc.sql("""
                insert into worker_function_block (worker_id, function_block_id)
                select w.id, (cast(:blocks as uuid[]))[1 + (row_number() over (order by w.name)) % :count]
                  from worker w where w.name like 'worker-%'
                """).param("blocks", SqlArrays.uuids(blocks)).param("count", blocks.size()).update();
    }

    private static void jobs(JdbcClient jdbc, int jobs, List<UUID> blocks) {
        jdbc.sql("""
                with fleet as (select array_agg(id order by name) as ids, count(*) as size
                                 from worker where name like 'worker-%')
                insert into job (id, function_block_id, type, status, attempt, worker_id, payload, correlation_id,
                                 created_at, polled_at, deadline, pushed_at, outcome, failure_reason, result, error,
                                 push_xid, push_seq)
                select gen_random_uuid(), (cast(:blocks as uuid[]))[1 + n % :count], 'EXECUTE',
                       case when n % 100 < 4 then 'PENDING' when n % 100 = 4 then 'POLLED' else 'PUSHED' end,
                       case when n % 100 < 4 then 0 else 1 end,
                       case when n % 100 >= 4 then fleet.ids[1 + (n / 100) % fleet.size] end,
                       jsonb_build_object('host', 'r' || n), 'wf-' || (n / 10),
                       c.at, case when n % 100 >= 4 then c.at + interval '1 second' end,
                       case when n % 100 = 4 then c.at + interval '1 hour' end,
                       case when n % 100 >= 5 then c.at + interval '2 seconds' end,
                       case when n % 100 >= 95 then 'FAILURE' when n % 100 >= 5 then 'SUCCESS' end,
                       case when n % 100 >= 95 then (case when n % 10000 = 99 then 'WORKER_DELETED'
                            else (array['WORKER_REPORTED', 'STUCK_TIMEOUT', 'WORKER_OFFLINE',
                                        'EXECUTION_TIMEOUT'])[1 + n % 4] end) end,
                       case when n % 100 between 5 and 94 then '{"lines": 120}'::jsonb end,
                       case when n % 100 >= 95 then '{"message": "device refused"}'::jsonb end,
                       case when n % 100 >= 5 then pg_current_xact_id() end,
                       case when n % 100 >= 5 then n end
                  from fleet, generate_series(1, :jobs) n,
                       lateral (select timestamptz '2026-01-01 00:00:00+00' + n * interval '1 second' as at) c
                """).param("blocks", SqlArrays.uuids(blocks)).param("count", blocks.size()).param("jobs", jobs)
                .update();
        jdbc.sql("analyze job").update();
        jdbc.sql("analyze worker").update();
    }

    /**
     * Eight days of history rollup rows, every function block in every minute: the most the
     * rollup keeps ({@code HistoryRollup.RETENTION}).
     */
    static void seedHistory(JdbcClient jdbc) {
        jdbc.sql("truncate history_minute cascade").update();
        jdbc.sql("""
                insert into history_minute (minute, claims, runs, snapshot, workers_online, workers_unreachable,
                                            workers_offline)
                select m, 100, 100, true, 10, 0, 0
                  from generate_series(date_trunc('minute', now()) - interval '8 days', date_trunc('minute', now()),
                                       interval '1 minute') m""").update();
        jdbc.sql("""
                insert into history_block_minute (minute, function_block_id, created, pending, polled)
                select h.minute, b.id, 5, 3, 1 from history_minute h, function_block b""").update();
        jdbc.sql("analyze history_minute, history_block_minute").update();
    }
}
