package io.blackboard.job;

import io.blackboard.functionblock.RetryPolicy;
import io.blackboard.functionblock.Schemas;
import io.blackboard.platform.errors.BadRequest;
import io.blackboard.platform.sql.Coalescer;
import io.blackboard.platform.sql.Ids;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The engine's side of the blackboard: write jobs, read them, cancel them. */
@Service
class JobService {

    private static final Logger log = LoggerFactory.getLogger(JobService.class);

    record Created(List<JobView> jobs, int inserted) {
    }

    /**
     * Coalesced inserts running at once on this replica: two keep PostgreSQL busy while the
     * next batch gathers, and leave the rest of the pool to claims and pushes.
     */
    private static final int CREATE_BATCHES_IN_FLIGHT = 2;
    /** Rows one coalesced insert takes before the creates queued behind it go in the next. */
    private static final int MAX_CREATE_BATCH_ROWS = 1_000;

    private final JobStore store;
    private final JsonMapper json;
    private final JobSignals signals;
    private final DueJobs due;
    private final BlockNames names;
    private final Schemas schemas;
    private final JobMetrics metrics;
    private final TransactionTemplate tx;
    private final Coalescer<List<NewJob>, List<JobView>> creates;

    JobService(JobStore store, JsonMapper json, JobSignals signals, DueJobs due, BlockNames names, Schemas schemas,
            JobMetrics metrics, TransactionTemplate tx) {
        this.tx = tx;
        this.names = names;
        this.due = due;
        // a row can break a constraint (its function block removed by hand); anything else is every create's
        this.creates = new Coalescer<>(this::insertTogether, DataIntegrityViolationException.class::isInstance,
                CREATE_BATCHES_IN_FLIGHT, MAX_CREATE_BATCH_ROWS);
        this.schemas = schemas;
        this.store = store;
        this.json = json;
        this.signals = signals;
        this.metrics = metrics;
    }

    /**
     * Creates the jobs, all or none, in the order given. A job whose idempotencyKey already
     * names a job is answered with that job; any invalid job rejects the whole batch.
     * <p>
     * Without idempotency keys the insert is one statement that cannot partly fail, so it
     * commits by itself: a transaction would add a COMMIT round trip before the wake-ups. Such
     * creates that arrive together (the engine's single-job calls from many threads) go as one
     * statement and one commit ({@link Coalescer}); each is still answered, or refused, on its
     * own. With keys, a reused key found after the insert must undo the batch, so it runs in one
     * (a plain JDBC transaction: it is all SQL).
     */
    Created create(List<CreateJob> requested) {
        BlockNames.Resolved named = names.resolve(requested);
        List<CreateJob> jobs = named.jobs();
        Set<UUID> blocks = jobs.stream().map(CreateJob::functionBlockId).collect(Collectors.toSet());
        Map<UUID, JobStore.Block> known = store.blocks(blocks);
        requireValidParams(jobs, known);
        try {
            if (keyed(jobs)) {
                return tx.execute(status -> insert(jobs, named.choices(), known, false));
            }
            // in a caller's transaction, the insert must be part of it: not coalesced
            return insert(jobs, named.choices(), known, !TransactionSynchronizationManager.isActualTransactionActive());
        } catch (DataIntegrityViolationException e) {
            // among these (a CHECK, a foreign key): a function block removed by hand since its
            // schema was kept. Look again, so that is a 422; anything else is rethrown as it was.
            store.forgetBlocks(blocks);
            requireValidParams(jobs, store.blocks(blocks));
            throw e;
        }
    }

    private static boolean keyed(List<CreateJob> jobs) {
        return jobs.stream().anyMatch(job -> job.idempotencyKey() != null);
    }

    private Created insert(List<CreateJob> jobs, List<List<UUID>> choices, Map<UUID, JobStore.Block> known,
            boolean coalesced) {
        List<UUID> ids = new ArrayList<>(Ids.newIds(jobs.size()));
        List<NewJob> rows = new ArrayList<>(jobs.size());
        for (int i = 0; i < jobs.size(); i++) {
            rows.add(newJob(ids.get(i), jobs.get(i), known.get(jobs.get(i).functionBlockId()), choices.get(i),
                    where(i, jobs.size())));
        }
        List<JobView> created;
        int inserted;
        if (coalesced) {
            created = creates.run(rows, rows.size());
            inserted = created.size();
        } else {
            NewJob.Columns input = NewJob.columns(json, rows);
            created = store.insert(input, keyed(jobs));
            inserted = created.size();
            if (inserted < jobs.size()) {
                resolveIdempotencyKeys(jobs, ids, input);
                created = store.findMany(new LinkedHashSet<>(ids));
            }
        }
        Map<UUID, JobView> found = created.stream().collect(Collectors.toMap(JobView::id, Function.identity()));
        metrics.created(inserted);
        if (inserted > 0) {
            log.debug("Created {} jobs: {}", inserted, ids);
            signals.pending(signalsFor(jobs, ids, rows, found));
        }
        return new Created(ids.stream().map(found::get).toList(), inserted);
    }

    /**
     * The rows of creates that arrived together, in one insert: the answer of each create is its
     * own rows' jobs. Without idempotency keys every row is inserted, so a missing one is a fault
     * of the server, answered to every create of the batch.
     */
    private List<List<JobView>> insertTogether(List<List<NewJob>> creates) {
        List<NewJob> rows = new ArrayList<>();
        creates.forEach(rows::addAll);
        Map<UUID, JobView> inserted = store.insert(NewJob.columns(json, rows), false).stream()
                .collect(Collectors.toMap(JobView::id, Function.identity()));
        if (inserted.size() != rows.size()) {
            throw new IllegalStateException("Inserted " + inserted.size() + " of " + rows.size() + " jobs");
        }
        return creates.stream().map(create -> create.stream().map(row -> inserted.get(row.id())).toList())
                .toList();
    }

    /** Creates waiting to go in the next coalesced insert. */
    int createsQueued() {
        return creates.queued();
    }

    /**
     * One signal per (function block, selector) among the jobs this call inserted that can be
     * claimed now; a scheduled one is signalled when it falls due ({@link DueJobs}).
     */
    private List<JobSignals.Signal> signalsFor(List<CreateJob> jobs, List<UUID> ids,
            List<NewJob> rows, Map<UUID, JobView> created) {
        Map<List<Object>, Integer> counts = new LinkedHashMap<>();
        for (int i = 0; i < jobs.size(); i++) {
            if (ids.get(i).equals(rows.get(i).id()) && created.get(ids.get(i)).scheduled()) {
                JobSignals.afterCommit(due::scheduled);
            } else if (ids.get(i).equals(rows.get(i).id())) {
                CreateJob job = jobs.get(i);
                counts.merge(Arrays.asList(job.functionBlockId(), job.selector()), 1, Integer::sum);
            }
        }
        return counts.entrySet().stream().map(e -> new JobSignals.Signal((UUID) e.getKey().get(0),
                selector(e.getKey().get(1)), e.getValue())).toList();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> selector(Object value) {
        return (Map<String, String>) value;
    }

    /** Every job names a registered function block and carries params its paramsJsonSchema accepts. */
    private void requireValidParams(List<CreateJob> jobs, Map<UUID, JobStore.Block> known) {
        for (int i = 0; i < jobs.size(); i++) {
            CreateJob job = jobs.get(i);
            JobStore.Block block = known.get(job.functionBlockId());
            if (block == null) {
                throw new JobProblems.UnknownFunctionBlock(where(i, jobs.size()), job.functionBlockId());
            }
            Optional<String> schema = Optional.ofNullable(block.paramsSchema());
            JsonNode payload = job.payload() == null || job.payload().isNull() ? json.createObjectNode() : job.payload();
            List<String> violations = schemas.violations(schema, payload);
            if (!violations.isEmpty()) {
                throw new JobProblems.SchemaViolation(where(i, jobs.size()) + "payload", "paramsJsonSchema",
                        violations);
            }
        }
    }

    private void resolveIdempotencyKeys(List<CreateJob> jobs, List<UUID> ids, NewJob.Columns input) {
        for (JobStore.KeyMatch match : store.matchIdempotencyKeys(input)) {
            if (!match.same()) {
                throw new JobProblems.IdempotencyKeyReused(where(match.ord(), jobs.size()),
                        jobs.get(match.ord()).idempotencyKey(), match.id());
            }
            ids.set(match.ord(), match.id());
        }
    }

    private NewJob newJob(UUID id, CreateJob job, JobStore.Block block, @Nullable List<UUID> choices, String where) {
        JsonNode payload = job.payload();
        if (payload != null && !payload.isNull() && !payload.isObject()) {
            throw new BadRequest(where + "payload must be a JSON object");
        }
        if (job.runAt() != null && job.delayMs() != null) {
            throw new BadRequest(where + "runAt and delayMs: give one of them, not both");
        }
        if (job.runAt() != null && (job.runAt().getYear() < 1 || job.runAt().getYear() > 9999)) {
            throw new BadRequest(where + "runAt must be a time between the years 1 and 9999");
        }
        RetryPolicy policy = retryPolicy(job, block, where);
        int maxAttempts = policy != null ? policy.maxAttempts() : job.maxAttempts() == null ? 1 : job.maxAttempts();
        return new NewJob(id, job, maxAttempts, policy, job.executionTimeoutMs() != null ? job.executionTimeoutMs()
                : block.executionTimeoutMs(), choices);
    }

    /**
     * The job's retry policy, whole: its own, else its function block's (whose maxAttempts the
     * job's own maxAttempts overrides), else none. A job's policy and maxAttempts that disagree
     * are refused rather than one silently winning.
     */
    private @Nullable RetryPolicy retryPolicy(CreateJob job, JobStore.Block block, String where) {
        if (job.retryPolicy() != null) {
            RetryPolicy own = job.retryPolicy();
            if (own.maxAttempts() != null && job.maxAttempts() != null && !own.maxAttempts().equals(job.maxAttempts())) {
                throw new BadRequest(where + "maxAttempts (" + job.maxAttempts() + ") and retryPolicy.maxAttempts ("
                        + own.maxAttempts() + ") differ: give it once");
            }
            return own.complete(job.maxAttempts());
        }
        if (block.retryPolicy() == null) {
            return null;
        }
        RetryPolicy inherited = json.readValue(block.retryPolicy(), RetryPolicy.class);
        return job.maxAttempts() != null ? new RetryPolicy(job.maxAttempts(), inherited.initialIntervalMs(),
                inherited.multiplier(), inherited.maxIntervalMs(), inherited.jitter(), inherited.nonRetryableErrors(),
                inherited.onExhausted()) : inherited;
    }

    static String where(int index, int size) {
        return size == 1 ? "" : "[" + index + "] ";
    }

    @Transactional(readOnly = true)
    JobView find(UUID id) {
        return store.find(id).orElseThrow(() -> new JobProblems.JobNotFound(id));
    }

    @Transactional(readOnly = true)
    JobPage list(JobFilter filter, int limit) {
        List<JobView> jobs = store.list(filter, limit + 1);
        if (jobs.size() <= limit) {
            return new JobPage(jobs, null);
        }
        JobView last = jobs.get(limit - 1);
        return new JobPage(jobs.subList(0, limit),
                new JobFilter.Cursor(last.createdAt(), last.id()).encode());
    }

    /**
     * A job's audit trail after an event id ({@link JobStore#FIRST_EVENT}: from the first). A job
     * created PENDING has no CREATED row (its row is its creation): its CREATED event is read from
     * the job, id 0 at its creation time, before every other. A CREATED row, where there is one (a
     * SCHEDULED job's, an OJS enqueue's, a job created before the rows stopped), is the job's first.
     */
    @Transactional(readOnly = true)
    List<JobEvent> events(UUID id, long after, int limit) {
        JobView job = find(id);
        List<JobEvent> stored = store.events(id, after, limit);
        if (after >= 0 || (!stored.isEmpty() && stored.getFirst().kind() == EventKind.CREATED)) {
            return stored;
        }
        List<JobEvent> events = new ArrayList<>(Math.min(stored.size() + 1, limit));
        events.add(new JobEvent(0, EventKind.CREATED, 0, null, "engine", null, job.createdAt()));
        events.addAll(stored.subList(0, Math.min(stored.size(), limit - 1)));
        return events;
    }

    /** Jobs one bulk-cancel transaction ends; a larger cancel commits in several. */
    static final int CANCEL_BATCH = 1_000;

    /**
     * Cancels every job not yet ended that matches the filter, each as {@link #cancel} would,
     * in transactions of {@link #CANCEL_BATCH} jobs, and answers how many. Rows a concurrent claim
     * or push holds are skipped by the batches and then cancelled one at a time, waiting for each:
     * a job being claimed is cancelled once its claim commits (its worker told in its next ping),
     * and one whose push commits first keeps its result.
     */
    int cancelMatching(CancelRequest filter) {
        if (filter.correlationId() == null && filter.functionBlockId() == null && filter.workerId() == null
                && filter.status() == null) {
            throw new BadRequest("give at least one filter: correlationId, functionBlockId, workerId or status");
        }
        List<String> statuses = filter.status() == null ? List.of("SCHEDULED", "PENDING", "POLLED", "PARKED")
                : switch (JobStatus.parse(filter.status())) {
                    case PENDING -> List.of("SCHEDULED", "PENDING");
                    case POLLED -> List.of("POLLED");
                    case PARKED -> List.of("PARKED");
                    case PUSHED -> throw new BadRequest("status: a PUSHED job has ended; cancel PENDING or POLLED jobs");
                };
        int total = 0;
        List<UUID> left;
        do {
            int batch;
            do {
                batch = tx.execute(status -> {
                    int cancelled = store.cancelMatching(filter, statuses, CANCEL_BATCH);
                    if (cancelled > 0) {
                        signals.pushed();
                    }
                    return cancelled;
                });
                total += batch;
            } while (batch > 0); // not "== CANCEL_BATCH": rows held elsewhere leave a batch short
            // what the batches skipped, each in a transaction of its own that holds no other row
            left = store.leftToCancel(filter, statuses, CANCEL_BATCH);
            for (UUID id : left) {
                Boolean cancelled = tx.execute(status -> {
                    boolean done = store.cancel(id);
                    if (done) {
                        signals.pushed();
                    }
                    return done;
                });
                total += Boolean.TRUE.equals(cancelled) ? 1 : 0;
            }
        } while (!left.isEmpty());
        if (total > 0) {
            metrics.cancelled(total);
            log.info("{} jobs cancelled ({})", total, filter);
        }
        return total;
    }

    /** PENDING, POLLED or PARKED -> PUSHED/CANCELLED. Cancelling a cancelled job again is a no-op. */
    @Transactional
    JobView cancel(UUID id) {
        if (store.cancel(id)) {
            metrics.cancelled();
            signals.pushed();
            log.info("Job {} cancelled", id);
            return find(id);
        }
        JobView job = find(id);
        if (job.outcome() == Outcome.CANCELLED) {
            return job;
        }
        throw new JobProblems.JobFinished(id, new JobProblems.JobState(job.status(), job.attempt(), job.outcome(),
                job.failureReason()));
    }
}
