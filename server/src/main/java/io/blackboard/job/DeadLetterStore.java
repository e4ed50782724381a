package io.blackboard.job;

import io.blackboard.platform.sql.SqlArrays;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Component;

/** Dead letters: the PARKED jobs, and the two ways out of PARKED an operator has. */
@Component
class DeadLetterStore {

    /** Filters every dead-letter statement shares; a null filter matches all. */
    private static final String MATCHING = """
            j.status = 'PARKED'
               and (cast(:ids as uuid[]) is null or j.id = any (cast(:ids as uuid[])))
               and (cast(:functionBlockId as uuid) is null or j.function_block_id = :functionBlockId)
               and (cast(:correlationId as text) is null or j.correlation_id = :correlationId)""";

    /** Parked jobs in id (creation) order after the cursor, on the small {@code job_parked} index. */
    static final String DEAD_LETTERS = "select " + JobRows.COLUMNS + " from job j where " + MATCHING + """

               and (cast(:after as uuid) is null or j.id > :after)
             order by j.id
             limit :limit
            """;

    /**
     * Re-runs up to {@code :batch} parked jobs after {@code :after} in id order (so a re-run of
     * many never takes a job it re-ran that parked again): each becomes PENDING as a new attempt,
     * with its retry policy's attempts again on top of those it spent (its errors and events
     * kept), and a {@code RERUN} event. A job that has spent the most attempts a job may
     * (10,000) stays parked.
     */
    static final String DEAD_LETTER_RERUN = """
            with picked as materialized (
                select id from job j where %s
                   and (cast(:after as uuid) is null or j.id > :after)
                   and j.attempt - j.releases < 10000
                 order by j.id
                 limit :batch
                   for update),
            rerun as (
                update job j
                   set status = 'PENDING',
                       max_attempts = least(10000, j.attempt - j.releases
                                                   + coalesce((j.retry_policy ->> 'maxAttempts')::int, 1))
                  from picked
                 where j.id = picked.id and j.status = 'PARKED'
                returning j.id, j.function_block_id, j.attempt),
            events as (
                insert into job_event (job_id, kind, attempt, actor, detail)
                select id, 'RERUN', attempt, 'operator', 'a dead letter run again' from rerun)
            select id, function_block_id from rerun order by id
            """.formatted(MATCHING);

    /** Ends a parked job with the FAILURE it parked instead of: into the result feed, a {@code DISCARDED} event. */
    static final String DEAD_LETTER_DISCARD = """
            with discarded as (
                update job j
                   set status = 'PUSHED', outcome = 'FAILURE', failure_reason = 'WORKER_REPORTED', pushed_at = now(),
                       push_xid = pg_current_xact_id(), push_seq = nextval('job_push_seq')
                 where j.id = :id and j.status = 'PARKED'
                returning j.id, j.attempt),
            events as (
                insert into job_event (job_id, kind, attempt, actor, detail)
                select id, 'DISCARDED', attempt, 'operator', 'the dead letter ends as its FAILURE' from discarded)
            select count(*) from discarded
            """;

    private final JdbcClient jdbc;

    DeadLetterStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Which parked jobs: these ids (null: any), of this block and correlation id (null: any). */
    record Filter(@Nullable Collection<UUID> ids, @Nullable UUID functionBlockId, @Nullable String correlationId) {

        JdbcClient.StatementSpec bind(JdbcClient.StatementSpec spec) {
            return spec.param("ids", ids == null ? null : SqlArrays.uuids(ids))
                    .param("functionBlockId", functionBlockId).param("correlationId", correlationId);
        }
    }

    List<JobView> list(Filter filter, @Nullable UUID after, int limit) {
        return filter.bind(jdbc.sql(DEAD_LETTERS)).param("after", after).param("limit", limit)
                .query(JobRows::view).list();
    }

    /** One job re-run, and its function block. */
    record Rerun(UUID id, UUID functionBlockId) {
    }

    List<Rerun> rerun(Filter filter, @Nullable UUID after, int batch) {
        return filter.bind(jdbc.sql(DEAD_LETTER_RERUN)).param("after", after).param("batch", batch)
                .query((rs, n) -> new Rerun(rs.getObject("id", UUID.class), rs.getObject("function_block_id", UUID.class)))
                .list();
    }

    boolean discard(UUID id) {
        return jdbc.sql(DEAD_LETTER_DISCARD).param("id", id).query(Integer.class).single() == 1;
    }
}
