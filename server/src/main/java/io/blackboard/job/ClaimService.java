package io.blackboard.job;

import io.blackboard.platform.sql.Coalescer;
import io.blackboard.platform.web.Caller;
import io.blackboard.worker.Directive;
import io.blackboard.worker.WorkerDirectory;
import io.blackboard.worker.WorkerNotFound;
import io.blackboard.worker.WorkerState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
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

    private final ClaimStore store;
    private final JobProperties properties;
    private final TransactionTemplate tx;
    private final JsonMapper json;
    private final WorkerDirectory workers;
    private final PollWaiters waiters;
    private final JobMetrics metrics;
    private final ClaimHints hints;
    private final JobLeases leases;
    private final Coalescer<Ask, Attempt> together;

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
        this.together = new Coalescer<>(this::attemptTogether, NextService::oneCallsFault,
                NextService.BATCHES_IN_FLIGHT, NextService.MAX_BATCH);
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
        Attempt first = attempt(request, caller, deadline);
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
                List<JobView> claimed = attempt(request, caller, deadline).claimed();
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

    /**
     * The second half, for the prepared requests of one transaction: each one's claims (not yet
     * delivered), in their order; none for a request whose deadline passed. The requests of
     * workers that ask for the same blocks with the same labels claim in one statement
     * ({@link ClaimStore#JOB_CLAIM}), in their order; a worker's second request in another one,
     * which counts the jobs the first claimed. A request whose deadline passed before its group's
     * statement claims nothing.
     */
    List<List<JobView>> claimPrepared(List<Prepared> prepared) {
        List<List<JobView>> claimed = new ArrayList<>(Collections.nCopies(prepared.size(), List.of()));
        List<Group> groups = new ArrayList<>();
        for (int i = 0; i < prepared.size(); i++) {
            Prepared one = prepared.get(i);
            if (!eligible(one)) {
                continue;
            }
            Group group = groups.stream().filter(g -> g.admits(one)).findFirst().orElse(null);
            if (group == null) {
                group = new Group(new ArrayList<>(), new ArrayList<>());
                groups.add(group);
            }
            group.members().add(one);
            group.positions().add(i);
        }
        for (Group group : groups) {
            List<Prepared> live = group.members().stream().filter(one -> Caller.before(one.deadline())).toList();
            List<JobView> jobs = live.isEmpty() ? List.of() : claimTogether(live);
            for (int m = 0; m < group.members().size(); m++) {
                UUID workerId = group.members().get(m).request().workerId();
                claimed.set(group.positions().get(m),
                        jobs.stream().filter(job -> workerId.equals(job.workerId())).toList());
            }
        }
        return claimed;
    }

    /**
     * Prepared requests that claim in one statement, and where each is among those of the
     * transaction: the same blocks and labels, each worker once, {@link ClaimStore#MAX_POLL_LIMIT}
     * jobs at most.
     */
    private record Group(List<Prepared> members, List<Integer> positions) {

        boolean admits(Prepared candidate) {
            Prepared first = members.getFirst();
            return first.blocks().equals(candidate.blocks())
                    && first.worker().labels().equals(candidate.worker().labels())
                    && members.stream().noneMatch(m -> m.request().workerId().equals(candidate.request().workerId()))
                    && members.stream().mapToInt(m -> m.request().limitOrDefault()).sum()
                            + candidate.request().limitOrDefault() <= ClaimStore.MAX_POLL_LIMIT;
        }
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

    /** A claim's request with its worker's row locked and found valid: ready to claim. */
    record Prepared(PollRequest request, ClaimStore.PollingWorker worker, Set<UUID> blocks, long deadline) {
    }

    /**
     * One claim at once (no waiting) for this poll, in a transaction it shares with the polls of
     * other workers that arrive meanwhile ({@link Coalescer}), as push + next round trips share
     * theirs ({@link NextService}): each worker's row locked in the order of the workers' ids, then
     * the claims, those of workers asking for the same blocks with the same labels in one
     * statement, and one commit. A poll whose deadline passed while it queued is refused as the
     * batch gets its connection, and the others go on without it; a poll's fault found later (an
     * unknown worker, a block it does not serve, its deadline passed as its row was locked) undoes
     * the shared transaction, and each poll runs again alone. A worker's row that something else
     * holds locked (an unregister taking its jobs back, an operator's SQL) is not waited for in a
     * shared transaction: that worker's poll runs alone on its own thread and waits there, the
     * others go on without it ({@link #prepare}), as push + next round trips do.
     */
    private Attempt attempt(PollRequest request, Caller caller, long deadline) {
        caller.refuseAtConnectionAfter(deadline);
        return together.run(new Ask(request, caller, deadline), 1);
    }

    /** Polls queued behind the shared claim transactions running (for tests). */
    int queued() {
        return together.queued();
    }

    /** The polls of a batch, one transaction: their workers' rows locked in the order of their ids, then the claims. */
    private List<Attempt> attemptTogether(List<Ask> asks) {
        int[] byWorker = inWorkerOrder(asks.stream().map(ask -> ask.request().workerId()).toList());
        Attempt[] attempts = new Attempt[asks.size()];
        tx.executeWithoutResult(status -> {
            List<Prepared> prepared = prepare(Arrays.stream(byWorker).mapToObj(asks::get).toList(), byWorker);
            List<List<JobView>> claimed = claimPrepared(prepared);
            for (int k = 0; k < byWorker.length; k++) {
                Prepared one = prepared.get(k);
                attempts[byWorker[k]] = new Attempt(claimed.get(k), one.blocks(), one.worker().labels(), eligible(one));
            }
        });
        return Arrays.asList(attempts);
    }

    /**
     * The positions of a batch's requests, in the order of their workers' ids: the order every
     * shared transaction locks workers' rows in, so two of them never wait on each other.
     */
    static int[] inWorkerOrder(List<UUID> workerIds) {
        return IntStream.range(0, workerIds.size()).boxed().sorted(Comparator.comparing(workerIds::get))
                .mapToInt(Integer::intValue).toArray();
    }

    /** A request to {@link #prepare}, with its caller and the deadline its work must begin by. */
    record Ask(PollRequest request, Caller caller, long deadline) {
    }

    /**
     * The first half of claims at once (no waiting) in the transaction in progress, for these
     * requests in this order: the workers' rows locked by statements sent in one round trip, then
     * each request checked ({@link NextService} then lands the workers' pushes, so their freed
     * slots count and one commit covers both). Refused when a request's deadline passed before
     * the work began; one refused refuses them all (the transaction is then rolled back).
     * {@link #claimPrepared} claims; the claims are then not yet {@link #deliver delivered}.
     * <p>
     * With several requests, a worker's row that another transaction holds locked (an unregister
     * taking its jobs back, an operator's SQL) is not waited for: before anything is done, the
     * batch is asked to run those requests alone, on their callers' threads where they wait for
     * the row, and the others again without them ({@link Coalescer.RunAlone}, naming each by its
     * position in the batch: {@code positions}, in the order of {@code asks}). A worker that does
     * not exist goes that way too, and is refused alone.
     */
    List<Prepared> prepare(List<Ask> asks, int[] positions) {
        List<Optional<ClaimStore.PollingWorker>> locked = store.lockForPoll(
                asks.stream().map(ask -> ask.request().workerId()).toList());
        if (asks.size() > 1) {
            int[] apart = IntStream.range(0, asks.size()).filter(i -> locked.get(i).isEmpty())
                    .map(i -> positions[i]).toArray();
            if (apart.length > 0) {
                throw new Coalescer.RunAlone(apart);
            }
        }
        List<Prepared> prepared = new ArrayList<>(asks.size());
        for (int i = 0; i < asks.size(); i++) {
            prepared.add(checked(asks.get(i), locked.get(i)));
        }
        return prepared;
    }

    /** The request checked against its worker, whose row this transaction has locked (empty: no such worker). */
    private static Prepared checked(Ask ask, Optional<ClaimStore.PollingWorker> locked) {
        PollRequest request = ask.request();
        UUID workerId = request.workerId();
        ClaimStore.PollingWorker worker = locked.orElseThrow(() -> new WorkerNotFound(workerId));
        ask.caller().requireBefore(ask.deadline()); // a connection may have been long in coming
        Set<UUID> blocks = new LinkedHashSet<>(worker.functionBlockIds());
        if (request.functionBlockIds() != null) {
            for (UUID id : request.functionBlockIds()) {
                if (!blocks.contains(id)) {
                    throw new JobProblems.NotServedByWorker(workerId, id);
                }
            }
            blocks = new LinkedHashSet<>(request.functionBlockIds());
        }
        return new Prepared(request, worker, blocks, ask.deadline());
    }

    /** Whether the worker may claim now for this request: running, its blocks named, asking for some. */
    private static boolean eligible(Prepared prepared) {
        ClaimStore.PollingWorker worker = prepared.worker();
        return worker.state() == WorkerState.ONLINE && worker.directive() == Directive.RUN
                && !prepared.blocks().isEmpty() && prepared.request().limitOrDefault() > 0;
    }

    /** One claim statement for eligible requests of the same blocks and labels, each worker once; the jobs, in claim order. */
    private List<JobView> claimTogether(List<Prepared> together) {
        Prepared first = together.getFirst();
        String labels = first.worker().labels();
        List<UUID> claimFrom = List.copyOf(first.blocks());
        List<ClaimHints.Hint> from = claimFrom.stream().map(block -> hints.current(block, labels)).toList();
        List<ClaimStore.Claimant> claimants = together.stream().map(prepared -> new ClaimStore.Claimant(
                prepared.request().workerId(), prepared.request().limitOrDefault(), prepared.worker().concurrency()))
                .toList();
        List<JobView> claimed = store.claim(claimants, claimFrom, from, labels, properties.stuckJobTimeout());
        claimed.forEach(job -> hints.claimed(labels, job));
        JobSignals.afterCommit(() -> metrics.claimed(claimed)); // a claim undone with its transaction is no claim
        if (!claimed.isEmpty() && log.isDebugEnabled()) {
            claimed.forEach(job -> log.debug("Worker {} claimed {}", job.workerId(), job.id()));
        }
        return claimed;
    }

    @Transactional(readOnly = true)
    List<JobView> ofWorker(UUID workerId, @Nullable JobStatus status, @Nullable JobFilter.Cursor after, int limit) {
        workers.requireKnown(workerId);
        return store.ofWorker(workerId, status, after == null ? null : after.createdAt(),
                after == null ? null : after.id(), limit);
    }
}
