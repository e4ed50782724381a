package io.blackboard.job;

import io.blackboard.platform.errors.ApiException;
import io.blackboard.platform.errors.BadRequest;
import io.blackboard.platform.sql.Coalescer;
import io.blackboard.platform.web.Caller;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;
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
 * each worker's row locked and its pushes landed, in the order of the workers' ids, then each
 * worker's claim (an order that cannot deadlock, {@link #runTogether}), and one commit for all.
 * One worker's fault (an unknown worker, a block it does not serve, its deadline passed, a
 * deadlock) undoes the shared transaction, and each part runs again alone: every request is
 * answered, or refused, on its own, and nothing lands twice.
 */
@Service
class NextService {

    /**
     * Shared transactions running at once on this replica. Each runs its workers' statements one
     * after the other, so with too few the cores wait on round trips and commits (two: 44% idle in
     * the benchmark), and with too many the batches stay small (eight: PostgreSQL's CPU per job
     * back up by a quarter); four keep both low and leave most of the pool to the rest.
     */
    static final int BATCHES_IN_FLIGHT = 4;
    /** Round trips one shared transaction takes before those queued behind it go in the next. */
    private static final int MAX_BATCH = 32;

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
     * The round trips of a batch, one transaction, in two passes: first, in the order of the
     * workers' ids, each worker's row locked and its pushes landed; then each worker's claim.
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
        int[] byWorker = IntStream.range(0, calls.size()).boxed()
                .sorted(Comparator.comparing(i -> calls.get(i).request().workerId()))
                .mapToInt(Integer::intValue).toArray();
        tx.executeWithoutResult(status -> {
            List<List<PushOutcome>> outcomes = new ArrayList<>(Collections.nCopies(calls.size(), null));
            ClaimService.Prepared[] prepared = new ClaimService.Prepared[calls.size()];
            for (int i : byWorker) {
                Call call = calls.get(i);
                List<PushRequest> results = call.request().resultsOrNone();
                List<PushOutcome> landed = new ArrayList<>(results.size());
                outcomes.set(i, landed);
                prepared[i] = claims.prepare(call.request().poll(), () -> {
                    if (!results.isEmpty()) {
                        landed.addAll(pushes.pushBatch(results));
                    }
                }, call.caller(), call.deadline());
            }
            for (int i : byWorker) {
                done[i] = new Done(outcomes.get(i), claims.claimPrepared(prepared[i]));
            }
        });
        return Arrays.asList(done);
    }

    /**
     * What one worker's part can cause, so the others run again without it: a refusal of its own,
     * a constraint one of its rows breaks, a deadlock or lock timeout its rows were part of.
     * Anything else (the database unreachable) is every part's.
     */
    private static boolean oneCallsFault(Throwable failed) {
        return failed instanceof ApiException || failed instanceof DataIntegrityViolationException
                || failed instanceof ConcurrencyFailureException;
    }
}
