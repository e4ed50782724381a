package io.blackboard.job;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/** Scheduled jobs falling due: when the next one does, and the statement that makes due ones PENDING. */
@Component
class DueJobStore {

    /**
     * Makes up to {@code :batch} due SCHEDULED jobs PENDING, earliest first, with a {@code DUE}
     * event each. Replicas may run it at once: each skips the rows another holds, and a job
     * cancelled meanwhile is no longer SCHEDULED and is left alone. The update's recheck does not
     * imply the scheduled index's predicate, so it finds the due jobs by id: with the plain
     * {@code status = 'SCHEDULED'}, statistics taken while few jobs were scheduled made PostgreSQL
     * walk the whole scheduled index once per due job (seconds per batch at 20,000 scheduled).
     */
    static final String JOB_MAKE_DUE = """
            with due as materialized (
                select id from job
                 where status = 'SCHEDULED' and run_at <= now()
                 order by run_at
                 limit :batch
                   for update skip locked),
            made as (
                update job j set status = 'PENDING'
                  from due
                 where j.id = due.id and coalesce(j.status = 'SCHEDULED', false)
                returning j.id, j.function_block_id, j.attempt),
            events as (
                insert into job_event (job_id, kind, attempt, actor)
                select id, 'DUE', attempt, 'server' from made)
            select function_block_id from made
            """;

    /** Milliseconds until the next SCHEDULED job falls due on the database clock (0 or less: due now); none: null. */
    static final String JOB_NEXT_DUE = """
            select cast(ceil(extract(epoch from min(run_at) - now()) * 1000) as bigint)
              from job where status = 'SCHEDULED'
            """;

    private final JdbcClient jdbc;

    DueJobStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** The function block of each job made PENDING (one entry per job). */
    List<UUID> makeDue(int batch) {
        return jdbc.sql(JOB_MAKE_DUE).param("batch", batch).query(UUID.class).list();
    }

    Optional<Long> millisUntilNextDue() {
        return jdbc.sql(JOB_NEXT_DUE).query(rs -> {
            rs.next();
            long millis = rs.getLong(1);
            return rs.wasNull() ? Optional.<Long>empty() : Optional.of(millis);
        });
    }
}
