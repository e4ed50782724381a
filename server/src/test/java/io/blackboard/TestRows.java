package io.blackboard;

import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Rows written straight into the tables: the bulk a query plan is made against, and a row as text. */
public final class TestRows {

    private TestRows() {
    }

    /**
     * {@code each} jobs of the block in each state a job can be in (PENDING, POLLED, and PUSHED as
     * a success, a failure and a cancellation), with fresh statistics: so every partial index on
     * job has rows, and the planner knows it. The jobs past PENDING are spread over workers of
     * their own (job.worker_id has no foreign key), ten jobs in each state a worker, as many busy
     * workers share a blackboard. Returns one of those workers.
     */
    public static UUID jobsInEveryState(JdbcClient jdbc, UUID functionBlockId, int each) {
        jdbc.sql("""
                with holders as (
                    select array_agg(gen_random_uuid()) as ids from generate_series(1, greatest(1, :each / 10)))
                insert into job (id, function_block_id, type, status, attempt, worker_id, polled_at, deadline,
                                 pushed_at, outcome, failure_reason, push_xid, push_seq)
                select gen_random_uuid(), :functionBlockId, 'EXECUTE', s.status, s.attempt,
                       case when s.attempt > 0 then holders.ids[1 + g % cardinality(holders.ids)] end,
                       s.polled_at, s.polled_at + interval '10 minutes', s.pushed_at, s.outcome, s.reason,
                       case when s.pushed_at is not null then pg_current_xact_id() end,
                       case when s.pushed_at is not null then nextval('job_push_seq') end
                  from holders, generate_series(1, :each) g,
                       (values ('PENDING', 0, null, null, null, null),
                               ('POLLED', 1, now(), null, null, null),
                               ('PUSHED', 1, now(), now(), 'SUCCESS', null),
                               ('PUSHED', 1, now(), now(), 'FAILURE', 'WORKER_REPORTED'),
                               ('PUSHED', 1, now(), now(), 'CANCELLED', null))
                       as s(status, attempt, polled_at, pushed_at, outcome, reason)
                """).param("functionBlockId", functionBlockId).param("each", each).update();
        jdbc.sql("analyze job").update();
        return jdbc.sql("select worker_id from job where function_block_id = :id and status = 'POLLED' limit 1")
                .param("id", functionBlockId).query(UUID.class).single();
    }

    /** {@code count} workers that nothing else looks at, each with a token's hash as registration gives it. */
    public static void workers(JdbcClient jdbc, int count) {
        jdbc.sql("""
                insert into worker (id, name, token_hash)
                select gen_random_uuid(), 'filler-' || g, sha256(convert_to('filler-' || g, 'UTF8'))
                  from generate_series(1, :count) g
                """).param("count", count).update();
        jdbc.sql("analyze worker").update();
    }

    /** The row of {@code table} with this id as JSON text, to prove a write that lost changed nothing. */
    public static String row(JdbcClient jdbc, String table, UUID id) {
        return jdbc.sql("select row_to_json(t)::text from " + table + " t where id = :id").param("id", id)
                .query(String.class).single();
    }
}
