package io.blackboard.job;

import io.blackboard.platform.sql.SqlArrays;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The SQL that takes claims back: server-side failures (stuck, worker lost), lease
 * extension and orphan release. Each statement locks what it changes, repeats its whole
 * predicate in its UPDATE, and writes its audit events in the same statement, so a push
 * that commits first wins and the sweeper changes nothing.
 */
@Component
class JobLeaseStore {

    /**
     * Fails the selected POLLED jobs, or re-queues them as a new attempt when attempts remain
     * and their function block is pure or idempotent, or the job came through the OJS binding
     * (queue set: its producer asked for OJS's retries; the claim that ended is kept in its
     * {@code errors}, and its {@code error} stays, as OJS shows). {@code %1$s} is where the jobs are read
     * from, {@code %2$s} the predicate choosing them (in the locking read and again in the UPDATE),
     * {@code %3$s} the batch's order. The update's recheck is written so that it implies no partial
     * index's predicate ({@code coalesce}; the status is never null): it finds the jobs by id, where
     * {@code deadline < now()} would let it walk the deadline index once per job on statistics
     * taken while few jobs were held.
     */
    private static final String OVERRUN = "(j.deadline < now() and j.execution_timeout_ms is not null"
            + " and j.deadline >= j.polled_at + j.execution_timeout_ms * interval '1 millisecond')";

    private static final String JOB_FAIL_TEMPLATE = """
            with due as materialized (
                select j.id, j.worker_id, j.attempt,
                       (j.attempt - j.releases < j.max_attempts
                        and (fb.pure or fb.idempotent or j.queue is not null)) as retry
                  from %1$s join function_block fb on fb.id = j.function_block_id
                 where j.status = 'POLLED' and %2$s
                 %3$s
                 limit :batch
                   for update of j skip locked),
            changed as (
                update job j
                   set status         = case when due.retry then 'PENDING' else 'PUSHED' end,
                       worker_id      = case when due.retry then null else j.worker_id end,
                       polled_at      = case when due.retry then null else j.polled_at end,
                       deadline       = case when due.retry then null else j.deadline end,
                       pushed_at      = case when due.retry then null else now() end,
                       outcome        = case when due.retry then null else 'FAILURE' end,
                       failure_reason = case when due.retry then null else :reason end,
                       error          = case when due.retry and j.queue is null then null
                                             else to_jsonb(cast(:message as text)) end,
                       errors         = case when j.queue is null then j.errors else jsonb_path_query_array(
                                            j.errors || jsonb_build_array(jsonb_build_object(
                                                'attempt', j.attempt, 'workerId', j.worker_id, 'at', now(),
                                                'error', jsonb_build_object('code', lower(:reason),
                                                                            'message', cast(:message as text)))),
                                            '$[last - 99 to last]') end,
                       push_xid       = case when due.retry then null else pg_current_xact_id() end,
                       push_seq       = case when due.retry then null else nextval('job_push_seq') end
                  from due
                 where j.id = due.id and coalesce(j.status = 'POLLED' and %2$s, false)
                returning j.id, j.function_block_id, due.worker_id, due.attempt, due.retry),
            events as (
                insert into job_event (job_id, kind, attempt, worker_id, actor, detail)
                select id, case when retry then 'REQUEUED' else 'FAILED' end, attempt, worker_id, :actor, :reason
                  from changed)
            select id, function_block_id, worker_id, attempt, retry from changed
            """;

    /**
     * Past the deadline where the execution timeout put it: however often the lease was extended,
     * the claim ran as long as it may. Read on the deadline index, as the stuck jobs are.
     */
    static final String JOB_FAIL_OVERRUN = JOB_FAIL_TEMPLATE.formatted("job j", OVERRUN, "order by j.deadline");

    /** The most overdue first, on the deadline index; overruns go first ({@link #JOB_FAIL_OVERRUN}). */
    static final String JOB_FAIL_STUCK = JOB_FAIL_TEMPLATE.formatted("job j", "j.deadline < now() and not " + OVERRUN,
            "order by j.deadline");

    /**
     * The lost workers' jobs, in no order (they all go), found by one probe of
     * {@code job_by_worker} per worker (each named once, however often it is listed), as the claim
     * probes per block. Filtering all POLLED jobs
     * on {@code worker_id = any (...)} instead made PostgreSQL's generic plan walk the whole
     * deadline index, every job in flight, to find one worker's few.
     */
    static final String JOB_FAIL_HELD_BY = JOB_FAIL_TEMPLATE.formatted(
            "(select distinct unnest(cast(:workerIds as uuid[])) as id) lost join job j on j.worker_id = lost.id",
            "j.worker_id = any (cast(:workerIds as uuid[]))", "");

    /**
     * A heartbeat extends the leases of the jobs it lists that the worker still holds. A job
     * locked by a concurrent push is skipped (it is ending anyway): a heartbeat never waits on
     * job rows, so it cannot deadlock with a batch push locking the same rows in another order.
     */
    static final String JOB_EXTEND_LEASES = """
            with held as materialized (
                select id from job
                 where worker_id = :workerId and status = 'POLLED' and id = any (cast(:jobIds as uuid[]))
                   for update skip locked)
            update job j
               set deadline = least(greatest(j.deadline, now() + :timeoutMs * interval '1 millisecond'),
                                    j.polled_at + j.execution_timeout_ms * interval '1 millisecond')
              from held
             where j.id = held.id and j.worker_id = :workerId and j.status = 'POLLED'
            returning j.id
            """;

    /**
     * Gives claims back to PENDING without spending an attempt, with their {@code RELEASED}
     * events; {@code %s} selects and locks them ({@code id, attempt}), all held by
     * {@code :workerId}. Fenced by worker and attempt: a later claim of the same job, or a push
     * that won, is never touched.
     */
    private static final String JOB_RELEASE_TEMPLATE = """
            with due as materialized (%s),
            released as (
                update job j
                   set status = 'PENDING', worker_id = null, polled_at = null, deadline = null,
                       releases = j.releases + 1
                  from due
                 where j.id = due.id and j.worker_id = :workerId and j.status = 'POLLED' and j.attempt = due.attempt
                returning j.id, j.function_block_id, due.attempt),
            events as (
                insert into job_event (job_id, kind, attempt, worker_id, actor, detail)
                select id, 'RELEASED', attempt, :workerId, :actor, :detail
                  from released)
            select function_block_id from released
            """;

    /**
     * Claims the worker holds but does not list, older than the grace period: their response
     * never reached it.
     */
    static final String JOB_RELEASE_ORPHANS = JOB_RELEASE_TEMPLATE.formatted("""
            select id, attempt from job
             where worker_id = :workerId and status = 'POLLED'
               and polled_at < now() - :graceMs * interval '1 millisecond'
               and not (id = any (cast(:jobIds as uuid[])))
               for update skip locked""");

    /** Claims whose answer never left the server: its client had gone, or writing it failed. */
    static final String JOB_RELEASE_UNDELIVERED = JOB_RELEASE_TEMPLATE.formatted("""
            select j.id, j.attempt
              from unnest(cast(:jobIds as uuid[]), cast(:attempts as integer[])) as claim(id, attempt)
              join job j on j.id = claim.id and j.attempt = claim.attempt
             where j.worker_id = :workerId and j.status = 'POLLED'
               for update of j skip locked""");

    /** Jobs the engine cancelled while this worker held them, recently enough to still matter. */
    static final String JOB_CANCELLED_WHILE_HELD = """
            select id from job
             where worker_id = :workerId and outcome = 'CANCELLED' and polled_at is not null
               and pushed_at > now() - :windowMs * interval '1 millisecond'
            """;

    private final JdbcClient jdbc;

    JobLeaseStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** One job a failure pass took from its worker: failed for good, or re-queued as a new attempt. */
    record Taken(UUID jobId, UUID functionBlockId, UUID workerId, int attempt, boolean requeued) {
    }

    /** What a failure pass did, job by job. */
    record Failed(List<Taken> jobs) {

        int failed() {
            return (int) jobs.stream().filter(job -> !job.requeued()).count();
        }

        int requeued() {
            return jobs.size() - failed();
        }

        int total() {
            return jobs.size();
        }

        /** The function block of each re-queued job, to wake parked polls. */
        List<UUID> requeuedBlocks() {
            return jobs.stream().filter(Taken::requeued).map(Taken::functionBlockId).toList();
        }

        /** One line per job: a final failure is a WARN, a re-queue an INFO. */
        void log(Logger log, FailureReason reason) {
            for (Taken job : jobs) {
                if (job.requeued()) {
                    log.info("Job {} attempt {} taken from worker {} ({}): re-queued as a new attempt",
                            job.jobId(), job.attempt(), job.workerId(), reason);
                } else {
                    log.warn("Job {} attempt {} on worker {} failed: {}", job.jobId(), job.attempt(),
                            job.workerId(), reason);
                }
            }
        }
    }

    Failed failOverrun(int batch) {
        return new Failed(jdbc.sql(JOB_FAIL_OVERRUN)
                .param("batch", batch).param("reason", FailureReason.EXECUTION_TIMEOUT.name()).param("actor", "sweeper")
                .param("message", "ran longer than the job's execution timeout")
                .query(JobLeaseStore::taken).list());
    }

    Failed failStuck(int batch) {
        return new Failed(jdbc.sql(JOB_FAIL_STUCK)
                .param("batch", batch).param("reason", FailureReason.STUCK_TIMEOUT.name()).param("actor", "sweeper")
                .param("message", "no result pushed before the job's deadline")
                .query(JobLeaseStore::taken).list());
    }

    Failed failHeldBy(Collection<UUID> workerIds, String reason, String message, int batch) {
        return new Failed(jdbc.sql(JOB_FAIL_HELD_BY)
                .param("workerIds", SqlArrays.uuids(workerIds)).param("batch", batch)
                .param("reason", reason).param("actor", "registry").param("message", message)
                .query(JobLeaseStore::taken).list());
    }

    private static Taken taken(ResultSet rs, int row) throws SQLException {
        return new Taken(rs.getObject("id", UUID.class), rs.getObject("function_block_id", UUID.class),
                rs.getObject("worker_id", UUID.class), rs.getInt("attempt"), rs.getBoolean("retry"));
    }

    List<UUID> extendLeases(UUID workerId, Collection<UUID> jobIds, Duration timeout) {
        return jdbc.sql(JOB_EXTEND_LEASES)
                .param("workerId", workerId).param("jobIds", SqlArrays.uuids(jobIds)).param("timeoutMs", timeout.toMillis())
                .query(UUID.class).list();
    }


    /** Releases orphaned claims; answers the function block of each released job. */
    List<UUID> releaseOrphans(UUID workerId, Collection<UUID> listed, Duration grace) {
        return jdbc.sql(JOB_RELEASE_ORPHANS)
                .param("actor", "heartbeat").param("detail", "claim not known to the worker")
                .param("workerId", workerId).param("jobIds", SqlArrays.uuids(listed)).param("graceMs", grace.toMillis())
                .query(UUID.class).list();
    }

    /** Releases claims whose answer was not delivered; answers the function block of each released job. */
    List<UUID> releaseUndelivered(UUID workerId, List<UUID> jobIds, List<Integer> attempts) {
        return jdbc.sql(JOB_RELEASE_UNDELIVERED)
                .param("actor", "server").param("detail", "the answer carrying the claim was not delivered")
                .param("workerId", workerId).param("jobIds", SqlArrays.uuids(jobIds))
                .param("attempts", SqlArrays.integers(attempts.toArray(Integer[]::new)))
                .query(UUID.class).list();
    }

    List<UUID> cancelledWhileHeld(UUID workerId, Duration window) {
        return jdbc.sql(JOB_CANCELLED_WHILE_HELD)
                .param("workerId", workerId).param("windowMs", window.toMillis())
                .query(UUID.class).list();
    }

}
