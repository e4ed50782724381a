package io.blackboard.job;

import io.blackboard.platform.web.Caller;
import io.blackboard.worker.Directive;
import io.blackboard.worker.WorkerDirectory;
import io.blackboard.worker.WorkerNotFound;
import io.blackboard.worker.WorkerState;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/** The worker's side of the blackboard: claim jobs, at once or after a long poll. */
@Service
class ClaimService {

    private static final Logger log = LoggerFactory.getLogger(ClaimService.class);
    private static final TypeReference<Map<String, String>> LABELS = new TypeReference<>() { };
    private static final Runnable NOTHING_FIRST = () -> { };

    private final ClaimStore store;
    private final JobProperties properties;
    private final TransactionTemplate tx;
    private final JsonMapper json;
    private final WorkerDirectory workers;
    private final PollWaiters waiters;
    private final JobMetrics metrics;
    private final ClaimHints hints;
    private final JobLeases leases;

    ClaimService(ClaimStore store, JobProperties properties, TransactionTemplate tx, JsonMapper json,
            WorkerDirectory workers, PollWaiters waiters, JobMetrics metrics, ClaimHints hints, JobLeases leases) {
        this.hints = hints;
        this.leases = leases;
        this.workers = workers;
        this.waiters = waiters;
        this.metrics = metrics;
        this.store = store;
        this.properties = properties;
        this.tx = tx;
        this.json = json;
    }

    /**
     * Claims up to {@code limit} jobs. With {@code waitMs} and nothing to claim, parks until a
     * matching job appears (on any replica), the periodic re-check, or the time runs out: waitMs,
     * or the caller's deadline less the answer margin (a fifth of the caller's budget, if that is
     * less), whichever comes first. Never claims for a
     * client that closed its connection or whose deadline passed; gives the claims back at once
     * when their answer cannot be delivered.
     */
    List<JobView> poll(PollRequest request, Caller caller) throws InterruptedException {
        long waitNanos = TimeUnit.MILLISECONDS.toNanos(request.waitMsOrDefault());
        long deadline = caller.deadline(Duration.ofNanos(waitNanos).plus(properties.answerMargin()));
        if (caller.gone()) {
            return List.of();
        }
        Attempt first = tx.execute(status -> claimOnce(request, NOTHING_FIRST, caller, deadline));
        if (!first.claimed().isEmpty() || request.waitMsOrDefault() == 0) {
            return deliver(request.workerId(), first.claimed(), caller);
        }
        PollWaiters.Waiter waiter = waiters.park(first.eligible() ? first.blocks() : Set.of(),
                json.readValue(first.labels(), LABELS));
        if (waiter == null) {
            if (!waiters.isOpen()) {
                return List.of();
            }
            throw new JobProblems.TooManyParkedPolls(properties.parkedPollLimit());
        }
        try {
            // the answer needs time to reach the client: the margin, or a fifth of a shorter budget
            long reserve = Math.min(properties.answerMargin().toNanos(), (deadline - caller.arrival()) / 5);
            long until = Math.min(caller.arrival() + waitNanos, deadline - reserve);
            while (true) {
                if (caller.gone()) {
                    return List.of();
                }
                // the first pass closes the window between the empty claim and parking
                List<JobView> claimed = tx.execute(status -> claimOnce(request, NOTHING_FIRST, caller, deadline))
                        .claimed();
                long left = until - System.nanoTime();
                if (!claimed.isEmpty() || left <= 0) {
                    return deliver(request.workerId(), claimed, caller);
                }
                waiter.await(Duration.ofNanos(Math.min(left, properties.pollRecheck().toNanos())));
                if (!waiters.isOpen()) {
                    return List.of(); // shutting down: answer now, holding nothing
                }
            }
        } finally {
            waiters.leave(waiter);
        }
    }

    /** The second half: claims for a {@link #prepare prepared} request, nothing when its deadline passed. */
    List<JobView> claimPrepared(Prepared prepared) {
        return claimPreparedOnce(prepared).claimed();
    }

    /**
     * Hands claims to the answer, unless its client has gone: then they go back to PENDING at
     * once, as they do if writing the answer fails.
     */
    List<JobView> deliver(UUID workerId, List<JobView> claimed, Caller caller) {
        if (claimed.isEmpty()) {
            return claimed;
        }
        if (caller.gone()) {
            leases.releaseUndelivered(workerId, claimed);
            return List.of();
        }
        caller.onUndelivered(() -> leases.releaseUndelivered(workerId, claimed));
        return claimed;
    }

    /** One claim transaction's outcome, and what a parked poll waits for (labels as stored JSON). */
    private record Attempt(List<JobView> claimed, Set<UUID> blocks, String labels, boolean eligible) {
    }

    /** A claim's request with its worker's row locked, found valid and its {@code first} run: ready to claim. */
    record Prepared(PollRequest request, ClaimStore.PollingWorker worker, Set<UUID> blocks, long deadline) {
    }

    private Attempt claimOnce(PollRequest request, Runnable first, Caller caller, long deadline) {
        return claimPreparedOnce(prepare(request, first, caller, deadline));
    }

    /**
     * The first half of a claim at once (no waiting) in the transaction in progress: locks the
     * worker's row, checks the request, then runs {@code first} ({@link NextService} lands the
     * worker's pushes there, so their freed slots count and one commit covers both). Refused when
     * {@code deadline} passed before the work began. {@link #claimPrepared} claims; the claims are
     * then not yet {@link #deliver delivered}.
     */
    Prepared prepare(PollRequest request, Runnable first, Caller caller, long deadline) {
        UUID workerId = request.workerId();
        ClaimStore.PollingWorker worker = store.lockForPoll(workerId).orElseThrow(() -> new WorkerNotFound(workerId));
        caller.requireBefore(deadline); // a connection may have been long in coming
        Set<UUID> blocks = new LinkedHashSet<>(worker.functionBlockIds());
        if (request.functionBlockIds() != null) {
            for (UUID id : request.functionBlockIds()) {
                if (!blocks.contains(id)) {
                    throw new JobProblems.NotServedByWorker(workerId, id);
                }
            }
            blocks = new LinkedHashSet<>(request.functionBlockIds());
        }
        first.run();
        return new Prepared(request, worker, blocks, deadline);
    }

    private Attempt claimPreparedOnce(Prepared prepared) {
        PollRequest request = prepared.request();
        UUID workerId = request.workerId();
        ClaimStore.PollingWorker worker = prepared.worker();
        Set<UUID> blocks = prepared.blocks();
        boolean eligible = worker.state() == WorkerState.ONLINE && worker.directive() == Directive.RUN
                && !blocks.isEmpty() && request.limitOrDefault() > 0;
        if (!eligible || !Caller.before(prepared.deadline())) {
            return new Attempt(List.of(), blocks, worker.labels(), eligible);
        }
        List<UUID> claimFrom = List.copyOf(blocks);
        List<ClaimHints.Hint> from = claimFrom.stream().map(block -> hints.current(block, worker.labels())).toList();
        List<JobView> claimed = store.claim(workerId, worker, claimFrom, from, request.limitOrDefault(),
                properties.stuckJobTimeout());
        claimed.forEach(job -> hints.claimed(worker.labels(), job));
        JobSignals.afterCommit(() -> metrics.claimed(claimed)); // a claim undone with its transaction is no claim
        if (!claimed.isEmpty() && log.isDebugEnabled()) {
            log.debug("Worker {} claimed {}", workerId, claimed.stream().map(JobView::id).toList());
        }
        return new Attempt(claimed, blocks, worker.labels(), true);
    }

    @Transactional(readOnly = true)
    List<JobView> ofWorker(UUID workerId, @Nullable JobStatus status, @Nullable JobFilter.Cursor after, int limit) {
        workers.requireKnown(workerId);
        return store.ofWorker(workerId, status, after == null ? null : after.createdAt(),
                after == null ? null : after.id(), limit);
    }
}
