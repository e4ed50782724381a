package io.blackboard.job;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/** A worker's progress on a job it holds: one guarded statement, fenced as a push is. */
@Component
class ProgressStore {

    /**
     * Records the progress on the live claim (worker, attempt) of a POLLED job, with a
     * {@code PROGRESS} event, and extends its lease as a heartbeat listing it would (never past
     * its execution timeout). At most one report per {@code :minGapMs} is recorded per job, so a
     * worker reporting in a tight loop costs one row version and one event a gap; one within it
     * changes nothing. {@code held} says whether the claim is live at all.
     */
    static final String JOB_PROGRESS = """
            with held as materialized (
                select id, progress_at from job
                 where id = :jobId and worker_id = :workerId and status = 'POLLED'
                   and attempt = coalesce(cast(:attempt as integer), attempt)
                   for no key update),
            recorded as (
                update job j
                   set progress_percent = :percent, progress_message = :message, progress_at = now(),
                       deadline = least(greatest(j.deadline, now() + :timeoutMs * interval '1 millisecond'),
                                        j.polled_at + j.execution_timeout_ms * interval '1 millisecond')
                  from held
                 where j.id = held.id
                   and (held.progress_at is null or held.progress_at <= now() - :minGapMs * interval '1 millisecond')
                returning j.id, j.attempt, j.worker_id, j.progress_percent, j.progress_message, j.deadline),
            events as (
                insert into job_event (job_id, kind, attempt, worker_id, actor, detail)
                select id, 'PROGRESS', attempt, worker_id, 'worker',
                       left(progress_percent || '%' || coalesce(' ' || progress_message, ''), 1000)
                  from recorded)
            select (select count(*) from held) as held, r.deadline
              from (select 1) one left join recorded r on true
            """;

    private final JdbcClient jdbc;

    ProgressStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Whether the claim is live, and the new deadline when this report was recorded. */
    record Outcome(boolean held, Optional<OffsetDateTime> deadline) {
    }

    Outcome record(ProgressRequest request, Duration leaseTimeout, Duration minGap) {
        return jdbc.sql(JOB_PROGRESS).param("jobId", request.jobId()).param("workerId", request.workerId())
                .param("attempt", request.attempt()).param("percent", request.percent())
                .param("message", request.message()).param("timeoutMs", leaseTimeout.toMillis())
                .param("minGapMs", minGap.toMillis())
                .query((rs, n) -> new Outcome(rs.getLong("held") == 1,
                        Optional.ofNullable(rs.getObject("deadline", OffsetDateTime.class))))
                .single();
    }
}
