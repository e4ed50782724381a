package io.blackboard.platform.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class CoalescerTest {

    /** What one call can cause: the bad call -1 of {@link #answer}. */
    private static final Predicate<Throwable> ONE_CALLS_FAULT = IllegalArgumentException.class::isInstance;

    /** Every batch it ran, and how many ran at once at most. */
    private final List<List<Integer>> batches = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger mostAtOnce = new AtomicInteger();

    /** Released when the test lets the batch holding call 0 finish. */
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch inFlight = new CountDownLatch(1);

    /** One batch at a time; the one holding call 0 waits for {@link #release}, so calls queue behind it. */
    private Coalescer<Integer, String> held(int maxWeight) {
        return new Coalescer<>(calls -> {
            if (calls.contains(0)) {
                inFlight.countDown();
                await(release);
            }
            if (calls.contains(99)) {
                throw new IllegalStateException("database unreachable");
            }
            return answer(calls);
        }, ONE_CALLS_FAULT, 1, maxWeight);
    }

    private Future<String> runHeld(ExecutorService threads, Coalescer<Integer, String> coalescer)
            throws InterruptedException {
        Future<String> first = threads.submit(() -> coalescer.run(0, 1));
        assertThat(inFlight.await(10, TimeUnit.SECONDS)).isTrue();
        return first;
    }

    private List<String> answer(List<Integer> calls) {
        int now = running.incrementAndGet();
        mostAtOnce.accumulateAndGet(now, Math::max);
        try {
            batches.add(List.copyOf(calls));
            if (calls.contains(-1)) {
                throw new IllegalArgumentException("bad call -1");
            }
            return calls.stream().map(call -> "answer " + call).toList();
        } finally {
            running.decrementAndGet();
        }
    }

    @Test
    void aLoneCallRunsAtOnceByItself() {
        Coalescer<Integer, String> coalescer = new Coalescer<>(this::answer, ONE_CALLS_FAULT, 2, 100);

        assertThat(coalescer.run(7, 1)).isEqualTo("answer 7");
        assertThat(batches).containsExactly(List.of(7));
    }

    /**
     * A batch runs on a platform thread, whoever calls: on a virtual thread each of its statements'
     * answers would queue for a carrier behind the requests running there.
     */
    @Test
    void batchesRunOnPlatformThreadsWhileVirtualCallersWait() throws Exception {
        List<Thread> ranOn = Collections.synchronizedList(new ArrayList<>());
        Coalescer<Integer, String> coalescer = new Coalescer<>(calls -> {
            ranOn.add(Thread.currentThread());
            return answer(calls);
        }, ONE_CALLS_FAULT, 2, 100);
        eachAnsweredItsOwn(coalescer, 50);
        assertThat(ranOn).isNotEmpty().noneMatch(Thread::isVirtual).allMatch(Thread::isDaemon);
    }

    /** No thread can be started (the machine's limit reached): the caller's own runs the batch, and is answered. */
    @Test
    void withoutAThreadForItABatchRunsOnTheCallersOwn() throws Exception {
        Coalescer<Integer, String> coalescer = new Coalescer<>(this::answer, ONE_CALLS_FAULT, 1, 100, task -> {
            throw new java.util.concurrent.RejectedExecutionException("no thread");
        });
        eachAnsweredItsOwn(coalescer, 20);
        assertThat(coalescer.queued()).isZero();
        assertThat(mostAtOnce.get()).isEqualTo(1);
    }

    @Test
    void callsArrivingWhileABatchRunsGoTogetherInTheNextAndEachGetsItsOwnAnswer() throws Exception {
        Coalescer<Integer, String> coalescer = held(100);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<String> first = runHeld(threads, coalescer);
            List<Future<String>> queued = new ArrayList<>();
            for (int i = 1; i <= 5; i++) {
                int call = i;
                queued.add(threads.submit(() -> coalescer.run(call, 1)));
            }
            awaitQueued(coalescer, 5);
            release.countDown();

            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("answer 0");
            for (int i = 1; i <= 5; i++) {
                assertThat(queued.get(i - 1).get(10, TimeUnit.SECONDS)).isEqualTo("answer " + i);
            }
        }
        assertThat(batches).hasSize(2);
        assertThat(batches.get(1)).containsExactlyInAnyOrder(1, 2, 3, 4, 5);
    }

    /**
     * Calls queued behind a held batch, two of them with deadlines that pass while they wait: as
     * their batch gets its connection, those two are refused, each by its own deadline, and the
     * batch runs again without them.
     */
    @Test
    void callsWhoseDeadlinesPassedWhileTheirBatchWaitedAreRefusedAndTheRestRunWithoutThem() throws Exception {
        AtomicBoolean passed = new AtomicBoolean();
        Coalescer<Integer, String> coalescer = new Coalescer<>(calls -> {
            ConnectionDeadline.connected(); // what the pool runs as the batch gets its connection
            if (calls.contains(0)) {
                inFlight.countDown();
                await(release);
            }
            return answer(calls);
        }, ONE_CALLS_FAULT, 1, 100);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<String> first = runHeld(threads, coalescer);
            List<Future<String>> queued = new ArrayList<>();
            for (int i = 1; i <= 4; i++) {
                int call = i;
                queued.add(threads.submit(() -> {
                    if (call % 2 == 0) {
                        ConnectionDeadline.beforeFirstConnection(new ConnectionDeadline.Armed(passed::get, () -> {
                            throw new IllegalStateException("late " + call);
                        }));
                    }
                    return coalescer.run(call, 1);
                }));
            }
            awaitQueued(coalescer, 4);
            passed.set(true);
            release.countDown();

            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("answer 0");
            assertThat(queued.get(0).get(10, TimeUnit.SECONDS)).isEqualTo("answer 1");
            assertThat(queued.get(2).get(10, TimeUnit.SECONDS)).isEqualTo("answer 3");
            for (int late : List.of(2, 4)) {
                assertThatThrownBy(() -> queued.get(late - 1).get(10, TimeUnit.SECONDS)).cause()
                        .isInstanceOf(IllegalStateException.class).hasMessage("late " + late);
            }
        }
        assertThat(batches).hasSize(2);
        assertThat(batches.get(1)).containsExactlyInAnyOrder(1, 3);
    }

    /**
     * A batch that finds one of its calls would wait on another transaction (call 50, while
     * {@code busy} is held) sends it back: the others are answered by a batch without it while it
     * still waits, alone, on its caller's own thread with its caller's deadline armed there; the
     * batch's slot is free meanwhile, so later calls are answered too.
     */
    @Test
    void aCallABatchSendsBackRunsAloneOnItsCallersThreadWhileTheOthersAreAnswered() throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        List<Thread> aloneOn = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean deadlineArmed = new AtomicBoolean();
        Coalescer<Integer, String> coalescer = new Coalescer<>(calls -> {
            if (calls.contains(0)) {
                inFlight.countDown();
                await(release);
            }
            if (calls.size() > 1 && calls.contains(50)) {
                throw new Coalescer.RunAlone(new int[] {calls.indexOf(50)});
            }
            if (calls.contains(50)) {
                aloneOn.add(Thread.currentThread());
                deadlineArmed.set(ConnectionDeadline.take() != null);
                await(busy);
            }
            return answer(calls);
        }, ONE_CALLS_FAULT, 1, 100);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<String> first = runHeld(threads, coalescer);
            Future<String> one = threads.submit(() -> coalescer.run(1, 1));
            Future<String> fifty = threads.submit(() -> {
                ConnectionDeadline.beforeFirstConnection(new ConnectionDeadline.Armed(() -> false, () -> {
                }));
                return coalescer.run(50, 1);
            });
            Future<String> two = threads.submit(() -> coalescer.run(2, 1));
            awaitQueued(coalescer, 3);
            release.countDown();

            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("answer 0");
            assertThat(one.get(10, TimeUnit.SECONDS)).isEqualTo("answer 1");
            assertThat(two.get(10, TimeUnit.SECONDS)).isEqualTo("answer 2");
            assertThat(coalescer.run(3, 1)).as("no slot held by the call waiting alone").isEqualTo("answer 3");
            assertThat(fifty).as("still waiting alone").isNotDone();

            busy.countDown();
            assertThat(fifty.get(10, TimeUnit.SECONDS)).isEqualTo("answer 50");
        }
        assertThat(aloneOn).singleElement().matches(Thread::isVirtual, "the caller's own (virtual) thread");
        assertThat(deadlineArmed).as("the caller's deadline went with it").isTrue();
        assertThat(batches).containsExactly(List.of(0), List.of(1, 2), List.of(3), List.of(50));
    }

    /**
     * Calls sent back to run alone take turns, no more at once than batches in flight (each may
     * hold a database connection while it waits): rows held for every worker do not take the
     * whole pool.
     */
    @Test
    void callsSentBackRunAloneNoMoreAtOnceThanBatchesInFlight() throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        AtomicInteger aloneNow = new AtomicInteger();
        AtomicInteger aloneMost = new AtomicInteger();
        Coalescer<Integer, String> coalescer = new Coalescer<>(calls -> {
            if (calls.contains(0)) {
                inFlight.countDown();
                await(release);
            }
            int[] apart = IntStream.range(0, calls.size()).filter(i -> calls.get(i) >= 50).toArray();
            if (calls.size() > 1 && apart.length > 0) {
                throw new Coalescer.RunAlone(apart);
            }
            if (calls.getFirst() >= 50) {
                aloneMost.accumulateAndGet(aloneNow.incrementAndGet(), Math::max);
                await(busy);
                aloneNow.decrementAndGet();
            }
            return answer(calls);
        }, ONE_CALLS_FAULT, 1, 100);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<String> first = runHeld(threads, coalescer);
            List<Future<String>> queued = new ArrayList<>();
            for (int call : List.of(50, 1, 51, 52)) {
                queued.add(threads.submit(() -> coalescer.run(call, 1)));
            }
            awaitQueued(coalescer, 4);
            release.countDown();

            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("answer 0");
            assertThat(queued.get(1).get(10, TimeUnit.SECONDS)).isEqualTo("answer 1");
            Thread.sleep(200); // time for more than one to start, were they not taking turns
            assertThat(aloneNow.get()).isEqualTo(1);
            busy.countDown();
            for (int i : List.of(0, 2, 3)) {
                assertThat(queued.get(i).get(10, TimeUnit.SECONDS)).startsWith("answer 5");
            }
        }
        assertThat(aloneMost.get()).isEqualTo(1);
    }

    /** A deadline that says it passed but does not refuse: its call runs once, without looping on it. */
    @Test
    void aDeadlineThatDoesNotRefuseLetsItsCallRun() throws Exception {
        Coalescer<Integer, String> coalescer = new Coalescer<>(calls -> {
            ConnectionDeadline.connected();
            return answer(calls);
        }, ONE_CALLS_FAULT, 1, 100);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<String> call = threads.submit(() -> {
                ConnectionDeadline.beforeFirstConnection(new ConnectionDeadline.Armed(() -> true, () -> {
                }));
                return coalescer.run(5, 1);
            });
            assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("answer 5");
        }
        assertThat(batches).containsExactly(List.of(5));
    }

    @Test
    void aFailingCallFailsAloneAndTheOthersOfItsBatchAreAnswered() throws Exception {
        Coalescer<Integer, String> coalescer = held(100);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<String> first = runHeld(threads, coalescer);
            Future<String> good = threads.submit(() -> coalescer.run(1, 1));
            Future<String> bad = threads.submit(() -> coalescer.run(-1, 1));
            Future<String> alsoGood = threads.submit(() -> coalescer.run(2, 1));
            awaitQueued(coalescer, 3);
            release.countDown();

            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("answer 0");
            assertThat(good.get(10, TimeUnit.SECONDS)).isEqualTo("answer 1");
            assertThat(alsoGood.get(10, TimeUnit.SECONDS)).isEqualTo("answer 2");
            assertThatThrownBy(() -> bad.get(10, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("bad call -1");
        }
        // the batch of three, then each of them alone
        assertThat(batches.subList(1, batches.size())).hasSize(4);
        assertThat(batches.get(1)).hasSize(3);
    }

    @Test
    void aFailureThatIsNoOneCallsFailsEveryCallOfTheBatchAtOnceAndRunsNothingAgain() throws Exception {
        Coalescer<Integer, String> coalescer = held(100);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<String> first = runHeld(threads, coalescer);
            List<Future<String>> queued = new ArrayList<>();
            for (int call : List.of(1, 99, 2)) {
                queued.add(threads.submit(() -> coalescer.run(call, 1)));
            }
            awaitQueued(coalescer, 3);
            release.countDown();

            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("answer 0");
            for (Future<String> call : queued) {
                assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).cause()
                        .isInstanceOf(IllegalStateException.class).hasMessage("database unreachable");
            }
        }
        assertThat(batches).as("only the first batch answered: the three calls did not run again alone").hasSize(1);
    }

    @Test
    void aBatchTakesCallsUpToItsWeight() throws Exception {
        Coalescer<Integer, String> coalescer = held(10);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<String> first = runHeld(threads, coalescer);
            List<Future<String>> queued = new ArrayList<>();
            for (int i = 1; i <= 6; i++) {
                int call = i;
                queued.add(threads.submit(() -> coalescer.run(call, 4)));
            }
            awaitQueued(coalescer, 6);
            release.countDown();
            first.get(10, TimeUnit.SECONDS);
            for (Future<String> call : queued) {
                call.get(10, TimeUnit.SECONDS);
            }
        }
        // weights 4 each, up to 10: three calls reach 12 and stop the batch
        assertThat(batches.subList(1, batches.size())).extracting(List::size).containsExactly(3, 3);
    }

    @Test
    void underLoadEveryCallIsAnsweredWithItsOwnResultAndNoMoreBatchesRunAtOnceThanAllowed() throws Exception {
        Coalescer<Integer, String> coalescer = new Coalescer<>(calls -> {
            pause();
            return answer(calls);
        }, ONE_CALLS_FAULT, 2, 50);
        int threadsCount = 64;
        int callsEach = 100;
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Integer>> correct = new ArrayList<>();
            for (int t = 0; t < threadsCount; t++) {
                int base = t * callsEach;
                correct.add(threads.submit(() -> {
                    int ok = 0;
                    for (int i = 0; i < callsEach; i++) {
                        ok += coalescer.run(base + i, 1).equals("answer " + (base + i)) ? 1 : 0;
                    }
                    return ok;
                }));
            }
            for (Future<Integer> ok : correct) {
                assertThat(ok.get(60, TimeUnit.SECONDS)).isEqualTo(callsEach);
            }
        }
        assertThat(mostAtOnce.get()).isLessThanOrEqualTo(2);
        assertThat(batches.stream().mapToInt(List::size).sum()).isEqualTo(threadsCount * callsEach);
        assertThat(batches.size()).as("calls went together").isLessThan(threadsCount * callsEach / 4);
    }

    /** Calls 1 to n from virtual threads at once: each is answered with its own answer. */
    private static void eachAnsweredItsOwn(Coalescer<Integer, String> coalescer, int calls) throws Exception {
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<String>> answers = new ArrayList<>();
            for (int i = 1; i <= calls; i++) {
                int call = i;
                answers.add(threads.submit(() -> coalescer.run(call, 1)));
            }
            for (int i = 1; i <= calls; i++) {
                assertThat(answers.get(i - 1).get(10, TimeUnit.SECONDS)).isEqualTo("answer " + i);
            }
        }
    }

    private static void awaitQueued(Coalescer<?, ?> coalescer, int calls) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (coalescer.queued() < calls && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(coalescer.queued()).isEqualTo(calls);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void pause() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
