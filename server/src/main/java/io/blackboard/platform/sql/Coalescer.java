package io.blackboard.platform.sql;

import io.blackboard.platform.errors.ExceptionUtils;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.function.Predicate;
import org.springframework.lang.Nullable;

/**
 * Runs calls that arrive together as one batch: one statement and one commit for many callers.
 * <p>
 * No call waits for company. With fewer than {@code maxInFlight} batches running, a call runs
 * at once, alone; the calls that arrive while those run queue up and go together as the next
 * batch, so a batch grows only as long as the one ahead of it takes, up to about
 * {@code maxWeight} (each call weighs, say, its number of rows; the last call taken may pass
 * it).
 * <p>
 * Batches run on platform threads of their own, not on the callers' virtual threads. A batch
 * waits on the database several times (its statements, its commit), and each time it may go on
 * only when the database answers; on a virtual thread it would then queue for a carrier behind
 * the requests being parsed and answered there, with the database idle and the batch's locks
 * held meanwhile. The operating system wakes a platform thread at once. Each caller waits for its
 * answer on its own thread.
 * <p>
 * Each call succeeds or fails on its own. A batch that throws what one call can cause (a
 * constraint one row breaks, say: {@code oneCallsFault}) runs again one call at a time, and each
 * caller gets its own result or its own exception, as thrown. Any other failure (the database
 * unreachable) is every call's: each gets it at once, and nothing runs again.
 * <p>
 * A caller's {@link ConnectionDeadline} goes with its call: when a batch gets its database
 * connection, the calls whose callers' deadlines passed meanwhile are refused, each by its own
 * deadline, and the others run again without them, so nothing is done for a caller that left.
 * <p>
 * A batch that finds some of its calls would have to wait on what another transaction holds (a
 * row locked by an operator's SQL, say) throws {@link RunAlone} naming them: the others run again
 * as a batch without them, and each of those runs alone on its caller's own thread, waiting
 * there, so one call's wait holds up neither the other calls nor the batches behind it. At most
 * {@code maxInFlight} of them run at once (each may hold a database connection while it waits:
 * rows held for every worker must not take the whole pool); the others wait their turn without
 * one.
 *
 * @param <T> what one call asks for
 * @param <R> what it is answered
 */
public final class Coalescer<T, R> {

    /** Runs the calls of one batch: one result per call, in their order. */
    @FunctionalInterface
    public interface Batch<T, R> {
        List<R> run(List<T> calls);
    }

    private record Call<T, R>(T item, int weight, CompletableFuture<R> answer,
            @Nullable ConnectionDeadline.Armed deadline) {

        boolean late() {
            return deadline != null && deadline.passed().getAsBoolean();
        }
    }

    /** Thrown as a batch gets its connection: these calls' deadlines passed while it waited. */
    private static final class LateCalls extends RuntimeException {

        private final transient List<?> late;

        LateCalls(List<?> late) {
            super(null, null, false, false);
            this.late = late;
        }
    }

    /**
     * Thrown by a batch, before it has done anything: the calls at these positions of the batch
     * (their order in {@link Batch#run}'s list) must wait on something another transaction holds.
     * They run alone, each on its caller's thread; the others run again as a batch.
     */
    public static final class RunAlone extends RuntimeException {

        private final transient int[] positions;

        public RunAlone(int[] positions) {
            super(null, null, false, false);
            this.positions = positions.clone();
        }
    }

    /** The answer of a call that its caller is to run alone, on its own thread. */
    private static final RuntimeException ALONE = new RuntimeException(null, null, false, false) {
    };

    /**
     * The threads batches run on, shared by every coalescer: as many at once as the coalescers'
     * batches in flight allow, idle ones ending after a minute.
     */
    private static final ExecutorService RUNNERS = Executors.newCachedThreadPool(
            Thread.ofPlatform().daemon().name("coalescer-", 0).factory());

    private final Batch<T, R> batch;
    private final Predicate<Throwable> oneCallsFault;
    private final int maxWeight;
    private final Semaphore slots;
    /** Turns of the calls sent back to run alone: as many at once as batches in flight. */
    private final Semaphore alone;
    private final Executor runners;
    private final ConcurrentLinkedQueue<Call<T, R>> queue = new ConcurrentLinkedQueue<>();

    public Coalescer(Batch<T, R> batch, Predicate<Throwable> oneCallsFault, int maxInFlight, int maxWeight) {
        this(batch, oneCallsFault, maxInFlight, maxWeight, RUNNERS);
    }

    /** With the threads batches run on (tests: one that starts none). */
    Coalescer(Batch<T, R> batch, Predicate<Throwable> oneCallsFault, int maxInFlight, int maxWeight,
            Executor runners) {
        if (maxInFlight < 1 || maxWeight < 1) {
            throw new IllegalArgumentException("maxInFlight and maxWeight must be at least 1");
        }
        this.batch = batch;
        this.oneCallsFault = oneCallsFault;
        this.maxWeight = maxWeight;
        this.slots = new Semaphore(maxInFlight);
        this.alone = new Semaphore(maxInFlight);
        this.runners = runners;
    }

    /** Runs this call, with whatever calls arrive beside it, and answers it alone. */
    public R run(T item, int weight) {
        // the caller's deadline goes with the call: checked when its batch gets a connection
        Call<T, R> call = new Call<>(item, weight, new CompletableFuture<>(), ConnectionDeadline.take());
        queue.add(call);
        if (slots.tryAcquire()) {
            try {
                runners.execute(this::drain);
            } catch (RejectedExecutionException | OutOfMemoryError noThread) {
                drain(); // no thread could be started: the caller's own runs the batches, as it holds the slot
            }
        }
        try {
            return call.answer().join();
        } catch (CompletionException e) {
            if (e.getCause() == ALONE) {
                return alone(call);
            }
            throw rethrown(e.getCause());
        }
    }

    /**
     * A call that would wait on another transaction, run alone on its caller's thread in its turn,
     * its deadline with it (checked when it gets its connection).
     */
    private R alone(Call<T, R> call) {
        alone.acquireUninterruptibly();
        if (call.deadline() != null) {
            ConnectionDeadline.beforeFirstConnection(call.deadline());
        }
        try {
            return batch.run(List.of(call.item())).getFirst();
        } catch (RunAlone again) {
            throw new IllegalStateException("a call run alone was asked to run alone", again);
        } finally {
            ConnectionDeadline.clear();
            alone.release();
        }
    }

    /** Calls waiting for a batch, not counting those in one that runs (for tests and gauges). */
    public int queued() {
        return queue.size();
    }

    /** Runs batches while calls are queued; entered holding a slot, which it releases. */
    private void drain() {
        while (true) {
            List<Call<T, R>> taken = take();
            if (!taken.isEmpty()) {
                runBatch(taken);
            }
            if (queue.isEmpty()) {
                slots.release();
                // a call queued since that look found no free slot: take it on, if no one else has
                if (queue.isEmpty() || !slots.tryAcquire()) {
                    return;
                }
            }
        }
    }

    /** The calls at the head of the queue until their weight reaches maxWeight (the last may pass it). */
    private List<Call<T, R>> take() {
        List<Call<T, R>> taken = new ArrayList<>();
        int weight = 0;
        Call<T, R> next;
        while (weight < maxWeight && (next = queue.poll()) != null) {
            taken.add(next);
            weight += next.weight();
        }
        return taken;
    }

    private void runBatch(List<Call<T, R>> calls) {
        // as the batch gets its connection, calls whose callers' deadlines passed while it waited
        // are taken out, so nothing is done for them: each is refused, the rest run without them
        if (calls.stream().anyMatch(call -> call.deadline() != null)) {
            ConnectionDeadline.beforeFirstConnection(new ConnectionDeadline.Armed(
                    () -> calls.stream().anyMatch(Call::late),
                    () -> {
                        throw new LateCalls(calls.stream().filter(Call::late).toList());
                    }));
        }
        try {
            List<R> results = batch.run(calls.stream().map(Call::item).toList());
            for (int i = 0; i < calls.size(); i++) {
                calls.get(i).answer().complete(results.get(i));
            }
        } catch (Throwable failed) {
            LateCalls late = ExceptionUtils.find(failed, LateCalls.class);
            if (late != null) {
                runWithout(calls, late.late);
                return;
            }
            RunAlone alone = ExceptionUtils.find(failed, RunAlone.class);
            if (alone != null) {
                runApart(calls, alone.positions);
                return;
            }
            if (calls.size() == 1 || !oneCallsFault.test(failed)) {
                calls.forEach(call -> call.answer().completeExceptionally(failed));
                return;
            }
            for (Call<T, R> call : calls) {
                runBatch(List.of(call));
            }
        } finally {
            ConnectionDeadline.clear(); // a batch that got no connection leaves no check behind
        }
    }

    /** Refuses each late call by its own deadline, and runs the others again as a batch of their own. */
    private void runWithout(List<Call<T, R>> calls, List<?> late) {
        ConnectionDeadline.clear();
        List<Call<T, R>> others = new ArrayList<>();
        for (Call<T, R> call : calls) {
            if (!late.contains(call)) {
                others.add(call);
                continue;
            }
            try {
                call.deadline().refuse().run();
                // not refused after all: it runs, and is not checked again (no loop on a bad deadline)
                others.add(new Call<>(call.item(), call.weight(), call.answer(), null));
            } catch (RuntimeException refused) {
                call.answer().completeExceptionally(refused);
            }
        }
        if (!others.isEmpty()) {
            runBatch(others);
        }
    }

    /** Sends the calls at these positions back to their callers to run alone, and runs the others again as a batch. */
    private void runApart(List<Call<T, R>> calls, int[] positions) {
        boolean[] apart = new boolean[calls.size()];
        for (int position : positions) {
            apart[position] = true;
        }
        List<Call<T, R>> others = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            if (apart[i]) {
                calls.get(i).answer().completeExceptionally(ALONE);
            } else {
                others.add(calls.get(i));
            }
        }
        if (!others.isEmpty()) {
            runBatch(others);
        }
    }

    private static RuntimeException rethrown(Throwable cause) {
        if (cause instanceof RuntimeException e) {
            return e;
        }
        if (cause instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(cause);
    }
}
