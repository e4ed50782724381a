package io.blackboard.job;

import io.blackboard.platform.errors.ApiException;
import io.blackboard.platform.errors.BadRequest;
import io.blackboard.platform.sql.Coalescer;
import io.blackboard.platform.web.Caller;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * One round trip per job for a busy worker: the results it pushes and the next jobs it claims,
 * in one transaction. The worker's row is locked first, as for any poll; the pushes land
 * exactly as a batch push lands them (fenced by worker and attempt, each answered on its own);
 * the claim then sees their slots free. One commit covers both, and a request refused as a
 * whole (unknown worker, a block it does not serve) leaves nothing pushed and nothing claimed.
 * <p>
 * The round trips of different workers that arrive together share that transaction
 * ({@link Coalescer}): while earlier ones run, the next ones queue, then go as one transaction:
 * each worker's row locked, in the order of the workers' ids, then all their pushes, then the
 * claims (an order that cannot deadlock, {@link #runTogether}; workers asking for the same blocks
 * with the same labels claim in one statement), and one commit for all.
 * One worker's fault (an unknown worker, a block it does not serve, its deadline passed, a
 * deadlock) undoes the shared transaction, and each part runs again alone: every request is
 * answered, or refused, on its own, and nothing lands twice.
 */
@Service
class NextService {

    /**
     * Shared transactions running at once on this replica, for push + next round trips (and, in
     * ClaimService's coalescer of their own, as many for polls). The round trips that queue behind them
     * go in the next, so the fewer run at once, the more each takes, and the fewer statements and
     * commits PostgreSQL runs per job: its pushes are one statement and its claims one per group
     * of workers asking alike. In the benchmark (push + next, 8 workers, 2 cores) two kept
     * PostgreSQL's CPU per job about a quarter below four, with more jobs a second, though with a
     * third of the machine idle (BENCHMARKS.md).
     */
    static final int BATCHES_IN_FLIGHT = 2;
    /** Round trips one shared transaction takes before those queued behind it go in the next. */
    static final int MAX_BATCH = 32;

    /** One worker's round trip, as it waits for a shared transaction. */
    private record Call(NextRequest request, Caller caller, long deadline) {
    }

    /** What one worker's part of a shared transaction did: its pushes' answers and its claims (not yet delivered). */
    private record Done(List<PushOutcome> results, List<JobView> claimed) {
    }

    private final ClaimService claims;
    private final PushService pushes;
    private final TransactionTemplate tx;
    private final Coalescer<Call, Done> together;

    NextService(ClaimService claims, PushService pushes, TransactionTemplate tx) {
        this.claims = claims;
        this.pushes = pushes;
        this.tx = tx;
        this.together = new Coalescer<>(this::runTogether, NextService::oneCallsFault, BATCHES_IN_FLIGHT, MAX_BATCH);
    }

    NextAnswer next(NextRequest request, Caller caller) {
        List<PushRequest> results = request.resultsOrNone();
        for (int i = 0; i < results.size(); i++) {
            if (!request.workerId().equals(results.get(i).workerId())) {
                throw new BadRequest("results[" + i + "].workerId: every push must name the request's workerId");
            }
        }
        Done done = together.run(new Call(request, caller, caller.deadline(Caller.NO_DEADLINE)), 1);
        return new NextAnswer(done.results(), claims.deliver(request.workerId(), done.claimed(), caller));
    }

    /** Round trips queued behind the shared transactions running (for tests). */
    int queued() {
        return together.queued();
    }

    /**
     * The round trips of a batch, one transaction: first, in the order of the workers' ids, each
     * worker's row locked (a statement each, all sent in one round trip) and its request checked;
     * then every push of the batch in one statement
     * ({@link PushService#pushTogether}); then the claims, in that order, those of workers asking
     * for the same blocks with the same labels in one statement.
     * <p>
     * The order keeps shared transactions from deadlocking. A claim can leave a row locked that it
     * does not take: under READ COMMITTED, a PENDING row it found that another transaction had
     * claimed meanwhile stays locked by the claim's {@code FOR UPDATE} after its recheck drops it,
     * until the claim's transaction ends; such a row is some worker's POLLED job, which that
     * worker's push waits for. A transaction that claimed for one worker and then pushed for
     * another could wait on a transaction that waits on it (on the first's stray lock, or on a
     * worker row); claims here come after every push and wait on nothing ({@code SKIP LOCKED}),
     * so a transaction holding such a lock never waits, and the worker rows are locked in one
     * order. Answers in the order of the calls.
     */
    private List<Done> runTogether(List<Call> calls) {
        Done[] done = new Done[calls.size()];
        int[] byWorker = ClaimService.inWorkerOrder(calls.stream().map(call -> call.request().workerId()).toList());
        tx.executeWithoutResult(status -> {
            List<PushRequest> results = new ArrayList<>();
            List<ClaimService.Ask> asks = new ArrayList<>(calls.size());
            for (int i : byWorker) {
                Call call = calls.get(i);
                asks.add(new ClaimService.Ask(call.request().poll(), call.caller(), call.deadline()));
                results.addAll(call.request().resultsOrNone());
            }
            List<ClaimService.Prepared> prepared = claims.prepare(asks, byWorker);
            List<PushOutcome> landed = results.isEmpty() ? List.of() : pushes.pushTogether(results);
            List<List<JobView>> claimed = claims.claimPrepared(prepared);
            int from = 0;
            for (int k = 0; k < byWorker.length; k++) {
                int i = byWorker[k];
                int to = from + calls.get(i).request().resultsOrNone().size();
                done[i] = new Done(List.copyOf(landed.subList(from, to)), claimed.get(k));
                from = to;
            }
        });
        return Arrays.asList(done);
    }

    /**
     * What one worker's part can cause, so the others run again without it: a refusal of its own,
     * a constraint one of its rows breaks, a deadlock or lock timeout its rows were part of.
     * Anything else (the database unreachable) is every part's.
     */
    static boolean oneCallsFault(Throwable failed) {
        return failed instanceof ApiException || failed instanceof DataIntegrityViolationException
                || failed instanceof ConcurrencyFailureException;
    }
}
