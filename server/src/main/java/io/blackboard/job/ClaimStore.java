package io.blackboard.job;

import io.blackboard.platform.sql.SqlArrays;
import io.blackboard.worker.Directive;
import io.blackboard.worker.WorkerState;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Component;

/** The claim: the polling worker's lock and the one statement that takes its jobs. */
@Component
class ClaimStore {

    /**
     * Locks the polling worker's row for the claim that follows in the same transaction, so one
     * worker's concurrent polls cannot together exceed its concurrency, and a claim cannot slip
     * past the sweeper taking the worker OFFLINE. Returns what the claim needs to know. It also has
     * the rest of the transaction run generic plans ({@code plan_cache_mode}): PostgreSQL would
     * otherwise plan every {@link #JOB_CLAIM} afresh, its custom plans looking cheaper than the
     * generic one, at about 0.7 ms of its CPU a claim; the generic plan probes the same indexes.
     * And it has that plan made of ordered index probes whatever the statistics say at the moment
     * a connection makes it (no sequential or bitmap scans): a connection keeps its generic plan
     * until the next ANALYZE, and a plan made while the job table was recorded nearly empty
     * (bitmap scans of a block's whole PENDING range, then a sort) kept reading all of it for every
     * claim after the table filled: the benchmark's mixed load fell to about 100 jobs/s.
     * <p>
     * It locks the row without writing it ({@code for no key update}, the lock an update takes),
     * and records the poll ({@code last_polled_at}, read by the deaf-worker check and the
     * dashboard) only when the one recorded is a second old: a busy worker polls many times a
     * second, and each write would be a new version of its row and its WAL.
     */
    static final String WORKER_POLL = """
            with polled as materialized (
                select w.id, w.state, w.directive, w.concurrency, w.labels, w.last_polled_at
                  from worker w, (select set_config('plan_cache_mode', 'force_generic_plan', true),
                                         set_config('enable_bitmapscan', 'off', true),
                                         set_config('enable_seqscan', 'off', true)) as generic_plans
                 where w.id = :workerId and w.deleted_at is null
                   for no key update of w),
            recorded as (
                update worker w set last_polled_at = now()
                  from polled p
                 where w.id = p.id and (p.last_polled_at is null or p.last_polled_at < now() - interval '1 second'))
            select p.state, p.directive, p.concurrency, p.labels::text as labels,
                   array(select function_block_id from worker_function_block
                          where worker_id = p.id)::text[] as function_block_ids
              from polled p
            """;

    /**
     * {@link #WORKER_POLL} for a transaction shared by several workers' requests: a row another
     * transaction holds locked (an unregister taking the worker's jobs back, an operator's SQL)
     * is skipped, not waited for, and its worker's request runs alone (ClaimService#prepare).
     */
    static final String WORKER_POLL_SKIP_LOCKED = WORKER_POLL.replace("for no key update of w)",
            "for no key update of w skip locked)");

    /**
     * One statement per poll, or per group of polls of workers that ask for the same blocks with
     * the same labels ({@code :workerIds}, each with what it asks for ({@code :asked}) and {@code :concurrencies},
     * in the order they claim in). Each worker may take at most what it asked for and what its
     * concurrency leaves beside the jobs it holds ({@code claimants}); the group takes their sum,
     * and the jobs picked, in claim order, go to the workers in their order, each its share
     * ({@code slots}): as the same claims one after the other would, in one statement, one probe of
     * the index per block and one update for all. A worker is in a group at most once (its second
     * poll's claim must count the first's jobs).
     * <p>
     * Probes the PENDING index per requested block (claim order within
     * each), merges, and takes at most what the workers may still hold. Each block comes with the
     * {@link ClaimHints hint} of where this replica's last claims of it ended, or none. Without
     * one, the block's jobs are read from the front of its index ({@code ahead}, unbounded).
     * With one, from the hint on: jobs of higher priority ({@code ahead}), of its priority after
     * it ({@code after}) and of lower priority ({@code behind}), each probe starting at its own
     * place in the index, so none walks the dead entries the claims before it left at the front.
     * Only when those together find fewer jobs than asked for is the block read from the front as
     * well ({@code front}, a one-time filter otherwise), so a job behind a hint is never passed
     * over by a claim that comes back short. {@code union} drops the jobs {@code front} finds
     * again (a transaction's own row locks do not make it skip them).
     * The picking CTEs are MATERIALIZED so each runs exactly once (PostgreSQL bug 15715 is what
     * happens to {@code WHERE id IN (SELECT ... LIMIT n FOR UPDATE SKIP LOCKED)}).
     * The update finds the picked jobs by id; its recheck of their status is written so that it
     * does not imply the PENDING index's predicate ({@code coalesce}: the status is never null):
     * else the index could serve the join too, and a plan made while few jobs waited walks all of
     * it, every claimable job of every block, to join on a few ids.
     * <p>{@code :limit}, the sum of the limits, is written into the text ({@link #claimSql}), not
     * bound: with the limit a parameter PostgreSQL never settles on the generic plan and plans
     * every poll afresh, 0.3 ms of its CPU per poll; with it a literal, each limit's statement is
     * planned five times and then reuses its plan (BENCHMARKS.md).
     */
    static final String JOB_CLAIM = """
            with claimants as materialized (
                select c.worker_id, c.ord,
                       greatest(0, least(c.wanted, c.concurrency -
                           (select count(*) from job h where h.worker_id = c.worker_id and h.status = 'POLLED'))) as share
                  from unnest(cast(:workerIds as uuid[]), cast(:asked as integer[]), cast(:concurrencies as integer[]))
                       with ordinality as c(worker_id, wanted, concurrency, ord)),
            slots as materialized (
                select worker_id, share, sum(share) over (order by ord) - share as taken_before from claimants),
            fb as (
                select * from unnest(cast(:functionBlockIds as uuid[]), cast(:hintPriorities as integer[]),
                                     cast(:hintCreatedAts as timestamptz[]), cast(:hintIds as uuid[]))
                              as fb(id, priority, created_at, job_id)),
            ahead as materialized (%s),
            after as materialized (%s),
            behind as materialized (%s),
            hinted as materialized (
                select * from ahead union all select * from after union all select * from behind),
            front as materialized (%s
                 where (select count(*) from hinted) < :limit),
            picked as materialized (
                select p.id, row_number() over (order by p.priority desc, p.created_at, p.id) as n
                  from (select * from hinted union select * from front) p
                 order by p.priority desc, p.created_at, p.id
                 limit coalesce((select sum(share) from claimants), 0)),
            claimed as (
                update job j
                   set status = 'POLLED', worker_id = s.worker_id, polled_at = now(),
                       deadline = least(now() + :timeoutMs * interval '1 millisecond',
                                        now() + j.execution_timeout_ms * interval '1 millisecond'),
                       attempt = j.attempt + 1, progress_percent = null, progress_message = null, progress_at = null
                  from picked join slots s on picked.n > s.taken_before and picked.n <= s.taken_before + s.share
                 where j.id = picked.id and coalesce(j.status = 'PENDING', false)
                returning j.*),
            events as (
                insert into job_event (job_id, kind, attempt, worker_id, actor)
                select id, 'CLAIMED', attempt, worker_id, 'worker' from claimed)
            select %s from claimed j order by j.priority desc, j.created_at, j.id
            """.formatted(probe("j.priority > coalesce(fb.priority::bigint, -2147483649)"),
                    probe("j.priority = fb.priority and (j.created_at, j.id) > (fb.created_at, fb.job_id)"),
                    probe("j.priority < fb.priority"), probe("fb.job_id is not null"), JobRows.COLUMNS);

    /** Each block's claimable jobs where {@code bound} holds, in claim order, from where the bound starts in the index. */
    private static String probe(String bound) {
        return """

                select p.* from fb cross join lateral (
                    select j.id, j.priority, j.created_at from job j
                     where j.function_block_id = fb.id and j.status = 'PENDING' and %s
                       and j.selector <@ cast(:labels as jsonb)
                     order by j.priority desc, j.created_at, j.id
                     limit :limit
                       for update skip locked) p""".formatted(bound);
    }

    static final String JOB_OF_WORKER = "select " + JobRows.COLUMNS + """
              from job j
             where j.worker_id = :workerId and (cast(:status as text) is null or j.status = :status)
               and (cast(:afterPolledAt as timestamptz) is null
                    or (j.polled_at, j.id) < (cast(:afterPolledAt as timestamptz), cast(:afterId as uuid)))
             order by j.polled_at desc, j.id desc
             limit :limit
            """;

    /** The most jobs one poll may ask for (PollRequest), and one claim statement take. */
    static final int MAX_POLL_LIMIT = 100;
    private static final Map<Integer, String> CLAIM_BY_LIMIT = new ConcurrentHashMap<>();
    private static final Map<Integer, String> WORKER_POLLS_BY_COUNT = new ConcurrentHashMap<>();

    private final JdbcClient jdbc;
    private final JdbcTemplate template;

    ClaimStore(JdbcClient jdbc, JdbcTemplate template) {
        this.jdbc = jdbc;
        this.template = template;
    }

    /** The claim statement for one limit, its text made once. */
    private static String claimSql(int limit) {
        if (limit < 1 || limit > MAX_POLL_LIMIT) {
            throw new IllegalArgumentException("limit " + limit + " is outside 1.." + MAX_POLL_LIMIT);
        }
        return CLAIM_BY_LIMIT.computeIfAbsent(limit, n -> JOB_CLAIM.replace(":limit", Integer.toString(n)));
    }

    record PollingWorker(WorkerState state, Directive directive, int concurrency, String labels,
            List<UUID> functionBlockIds) {
    }

    Optional<PollingWorker> lockForPoll(UUID workerId) {
        return jdbc.sql(WORKER_POLL).param("workerId", workerId).query((rs, n) -> pollingWorker(rs)).optional();
    }

    /**
     * {@link #lockForPoll} for several workers in the transaction in progress, in this order (a
     * worker may come twice): the same statement for each, all sent in one round trip, so a shared
     * transaction ({@link NextService}, or {@link ClaimService}'s for polls) waits on the network once for its workers' rows, not once
     * per worker. PostgreSQL runs them one after the other, as if sent one by one; each answers
     * its own worker, empty if there is none. With several workers a row that another transaction
     * holds locked is not waited for ({@link #WORKER_POLL_SKIP_LOCKED}): its worker's answer is
     * empty too.
     */
    List<Optional<PollingWorker>> lockForPoll(List<UUID> workerIds) {
        if (workerIds.size() == 1) {
            return List.of(lockForPoll(workerIds.getFirst()));
        }
        // past 8, as many statements as the next multiple of 8, the last worker's repeated (its row
        // is already held): a few texts, and the server-side statements each connection prepares
        // for them, serve every batch size
        int sent = workerIds.size() <= 8 ? workerIds.size() : (workerIds.size() + 7) / 8 * 8;
        return template.execute(workerPolls(sent), (PreparedStatement statement) -> {
            for (int i = 0; i < sent; i++) {
                statement.setObject(i + 1, workerIds.get(Math.min(i, workerIds.size() - 1)));
            }
            statement.execute();
            List<Optional<PollingWorker>> locked = new ArrayList<>(workerIds.size());
            for (int i = 0; i < workerIds.size(); i++) {
                try (ResultSet rs = nextResult(statement, i)) {
                    locked.add(rs.next() ? Optional.of(pollingWorker(rs)) : Optional.empty());
                }
            }
            for (int i = workerIds.size(); i < sent; i++) {
                nextResult(statement, i).close();
            }
            return locked;
        });
    }

    /** The rows of the {@code index}th statement of a multi-statement text, its results read in turn. */
    private static ResultSet nextResult(PreparedStatement statement, int index) throws SQLException {
        if (index > 0 && !statement.getMoreResults()) {
            throw new IllegalStateException("statement " + (index + 1) + " of a pipelined text gave no rows");
        }
        return statement.getResultSet();
    }

    /** {@code count} {@link #WORKER_POLL_SKIP_LOCKED} statements in one text, each taking its worker's id; the text made once per count. */
    private static String workerPolls(int count) {
        return WORKER_POLLS_BY_COUNT.computeIfAbsent(count, n -> String.join(";\n",
                Collections.nCopies(n, WORKER_POLL_SKIP_LOCKED.replace(":workerId", "?").strip())));
    }

    private static PollingWorker pollingWorker(ResultSet rs) throws SQLException {
        return new PollingWorker(WorkerState.valueOf(rs.getString("state")),
                Directive.valueOf(rs.getString("directive")),
                rs.getInt("concurrency"), rs.getString("labels"),
                Arrays.stream((String[]) rs.getArray("function_block_ids").getArray())
                        .map(UUID::fromString).toList());
    }

    /** A worker claiming in a {@link #JOB_CLAIM} statement: at most {@code limit} jobs, within its concurrency. */
    record Claimant(UUID workerId, int limit, int concurrency) {
    }

    /** Claims up to {@code limit} jobs of these blocks for one worker, each block's probe starting at its hint (null: the front). */
    List<JobView> claim(UUID workerId, PollingWorker worker, List<UUID> functionBlockIds,
            List<ClaimHints.Hint> hints, int limit, Duration timeout) {
        return claim(List.of(new Claimant(workerId, limit, worker.concurrency())), functionBlockIds, hints,
                worker.labels(), timeout);
    }

    /**
     * Claims for workers that ask for the same blocks with the same labels, in one statement: the
     * jobs in claim order, each with its worker; the first claimant's share first. No worker may
     * be in it twice, and the limits together may not pass {@link #MAX_POLL_LIMIT}.
     */
    List<JobView> claim(List<Claimant> claimants, List<UUID> functionBlockIds, List<ClaimHints.Hint> hints,
            String labels, Duration timeout) {
        int n = functionBlockIds.size();
        Integer[] priorities = new Integer[n];
        OffsetDateTime[] createdAts = new OffsetDateTime[n];
        UUID[] ids = new UUID[n];
        for (int i = 0; i < n; i++) {
            ClaimHints.Hint hint = hints.get(i);
            if (hint != null) {
                priorities[i] = hint.priority();
                createdAts[i] = hint.createdAt();
                ids[i] = hint.id();
            }
        }
        Integer[] limits = claimants.stream().map(Claimant::limit).toArray(Integer[]::new);
        return jdbc.sql(claimSql(claimants.stream().mapToInt(Claimant::limit).sum()))
                .param("workerIds", SqlArrays.uuids(claimants.stream().map(Claimant::workerId).toList()))
                .param("asked", SqlArrays.integers(limits))
                .param("concurrencies", SqlArrays.integers(
                        claimants.stream().map(Claimant::concurrency).toArray(Integer[]::new)))
                .param("functionBlockIds", SqlArrays.uuids(functionBlockIds))
                .param("hintPriorities", SqlArrays.integers(priorities))
                .param("hintCreatedAts", SqlArrays.timestamps(createdAts))
                .param("hintIds", SqlArrays.uuids(ids))
                .param("labels", labels)
                .param("timeoutMs", timeout.toMillis())
                .query(JobRows::view).list();
    }

    /** A worker's jobs, most recently claimed first (a job with a worker always has a claim time), after a position. */
    List<JobView> ofWorker(UUID workerId, @Nullable JobStatus status, @Nullable OffsetDateTime afterPolledAt,
            @Nullable UUID afterId, int limit) {
        return jdbc.sql(JOB_OF_WORKER).param("workerId", workerId)
                .param("status", status == null ? null : status.name()).param("limit", limit)
                .param("afterPolledAt", afterPolledAt).param("afterId", afterId)
                .query(JobRows::view).list();
    }
}
