package io.blackboard.sdk.internal;

import io.blackboard.sdk.BlackboardException;
import io.blackboard.sdk.Job;
import io.blackboard.sdk.OnExpired;
import io.blackboard.sdk.RegistrationRejectedException;
import io.blackboard.sdk.StopReason;
import io.blackboard.sdk.WorkerConfig;
import io.blackboard.sdk.WorkerState;
import io.blackboard.sdk.WorkerStats;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The worker's machinery, behind {@code BlackboardWorker}. Two threads of its own: the <em>control</em> thread
 * registers, pings (the lease), applies directives, re-registers when the server forgot the worker, and runs
 * the shutdown sequence; the <em>poll</em> thread long-polls for exactly the free slots and hands each job to
 * the handler executor, where the job's push (with its retries) runs after its handler. With a server of API 1.1
 * the push is also a claim ({@code POST /blackboard/job/next}): the job it brings takes the pushed job's slot and
 * runs next on the same handler thread, so a busy worker makes one round trip per job and the poll loop only
 * claims for slots that are really free. Every state change happens under {@link #lock} and wakes both threads
 * through {@link #changed}.
 */
public final class WorkerRuntime {

    public static final String SDK_NAME = "blackboard-java";
    public static final String SDK_VERSION = "0.1.0";

    /** The release ping waits this much past the orphan grace, so the server surely counts the claim as old. */
    private static final long RELEASE_MARGIN_MS = 100;
    private static final int MAX_POLL_LIMIT = 100;

    private final WorkerConfig config;
    private final Logger log = System.getLogger("io.blackboard.sdk.worker");
    private final Counters counters = new Counters();
    private final boolean ownsHandlers;
    // made by start(), so that a worker built and never started holds no threads
    private HttpClient client;
    private Http http;
    private ExecutorService handlers;
    private Registrar registrar;
    private Heartbeat heartbeat;
    private volatile JobRunner runner;
    private volatile ProgressReporter progress;
    private final Map<String, HeldJob> held = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final CountDownLatch stopped = new CountDownLatch(1);

    private volatile WorkerState state = WorkerState.NEW;
    private volatile long pingIntervalMs = 20_000;
    private volatile long orphanGraceMs = 10_000;
    private volatile long maxPollWaitMs = 30_000;
    // the rest is guarded by lock
    private Session session;
    private boolean expired;
    private int generation;
    private StopReason stopReason;
    private boolean forced;
    private RuntimeException failure;
    private boolean pollInFlight;
    private boolean pollAborted;
    private boolean pollLost;
    private long pollLostAt;
    private long nextPingAt;
    private Thread pollThread;

    public WorkerRuntime(WorkerConfig config) {
        this.config = config;
        this.ownsHandlers = config.handlerExecutor() == null;
    }

    // ---- the face BlackboardWorker shows -------------------------------------------------------------------

    public void start() {
        lock.lock();
        try {
            if (state != WorkerState.NEW) {
                throw new IllegalStateException("the worker was already started");
            }
            state = WorkerState.REGISTERING;
            client = Http.defaultClient(config.connectTimeout(), config.sslContext());
            http = new Http(config.baseUrl(), client, config.requestTimeout(), SDK_NAME + "/" + SDK_VERSION);
            handlers = ownsHandlers ? HandlerExecutors.create(config.name(), config.concurrency())
                    : config.handlerExecutor();
            registrar = new Registrar(config, http, log, this);
            heartbeat = new Heartbeat(http, counters, log);
            runner = new JobRunner(http, counters, log, this);
            progress = new ProgressReporter(http, this, log, config.requestTimeout());
            Thread control = new Thread(this::control, "blackboard-" + config.name() + "-control");
            control.setDaemon(false); // a worker started from a daemon thread still keeps the JVM up
            control.start();
        } finally {
            lock.unlock();
        }
    }

    /** Asks for a graceful stop (the first reason wins); returns at once. */
    public void requestStop(StopReason reason) {
        lock.lock();
        try {
            if (state == WorkerState.NEW) {
                stopReason = reason;
                state = WorkerState.STOPPED;
                stopped.countDown();
                return;
            }
            if (stopReason == null) {
                stopReason = reason;
                log.log(Level.INFO, "worker {0} stopping ({1})", config.name(), reason);
            }
            abortPoll();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Like {@link #requestStop} but skips the drain and the release ping: held jobs are given up at once. */
    public void forceStop(StopReason reason) {
        requestStop(reason);
        lock.lock();
        try {
            forced = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        held.values().forEach(HeldJob::cancel);
    }

    public void awaitStopped() throws InterruptedException {
        stopped.await();
    }

    public boolean awaitStopped(Duration timeout) throws InterruptedException {
        return stopped.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Whether the calling thread is one of this worker's running handlers (which must not wait for the drain). */
    public boolean isHandlerThread() {
        JobRunner jobRunner = runner;
        return jobRunner != null && jobRunner.isHandlerThread();
    }

    public WorkerState state() {
        return state;
    }

    public WorkerStats stats() {
        return counters.snapshot();
    }

    public StopReason stopReason() {
        lock.lock();
        try {
            return state == WorkerState.STOPPED ? stopReason : null;
        } finally {
            lock.unlock();
        }
    }

    public RuntimeException failure() {
        lock.lock();
        try {
            return failure;
        } finally {
            lock.unlock();
        }
    }

    public String workerId() {
        lock.lock();
        try {
            return session == null ? null : session.workerId();
        } finally {
            lock.unlock();
        }
    }

    public int heldJobs() {
        return held.size();
    }

    public Duration pingInterval() {
        return Duration.ofMillis(pingIntervalMs);
    }

    // ---- the control thread ---------------------------------------------------------------------------------

    private void control() {
        try {
            if (register()) {
                startPollThread();
                serve();
            }
            shutdown();
        } catch (RegistrationRejectedException e) {
            log.log(Level.ERROR, e.getMessage());
            fail(e);
        } catch (InterruptedException e) {
            fail(new BlackboardException("the worker's control thread was interrupted", e));
        } catch (RuntimeException | Error e) {
            log.log(Level.ERROR, "the worker's control loop failed", e);
            fail(e instanceof RuntimeException r ? r : new BlackboardException("the worker failed", e));
        } finally {
            finish();
        }
    }

    /** RUNNING and QUIET: a ping every interval, a re-registration when the server forgot the worker. */
    private void serve() throws InterruptedException {
        Backoff backoff = backoff();
        Trouble trouble = new Trouble(log, "ping");
        nextPingAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pingIntervalMs);
        while (true) {
            boolean renew;
            lock.lock();
            try {
                long wait;
                while (stopReason == null && !expired && (wait = nextPingAt - System.nanoTime()) > 0) {
                    changed.awaitNanos(wait);
                }
                if (stopReason != null) {
                    return;
                }
                renew = expired;
            } finally {
                lock.unlock();
            }
            if (renew) {
                if (!renew()) {
                    return;
                }
                nextPingAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pingIntervalMs);
            } else {
                nextPingAt = System.nanoTime() + ping(backoff, trouble).toNanos();
            }
        }
    }

    /**
     * Registers the worker and its blocks (see {@link Registrar}) and makes that the current session. Answers
     * false when a stop was asked for meanwhile; throws {@link RegistrationRejectedException} on a refusal.
     */
    private boolean register() throws InterruptedException {
        setState(WorkerState.REGISTERING);
        Registrar.Registered registered = registrar.register();
        if (registered == null) {
            return false;
        }
        adopt(registered.answer());
        String directive = Json.string(registered.answer().get("directive"));
        lock.lock();
        try {
            session = new Session(registered.workerId(), registered.token(), registered.blocksById(), ++generation,
                    Session.hasNext(registered.answer().get("apiVersion")));
            expired = false;
            if (stopReason == null) {
                state = "QUIET".equals(directive) ? WorkerState.QUIET : WorkerState.RUNNING;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        log.log(Level.INFO, "registered worker {0} as {1} ({2} function blocks, concurrency {3}, API {4})",
                config.name(), registered.workerId(), registered.blocksById().size(),
                String.valueOf(config.concurrency()), registered.answer().get("apiVersion"));
        if ("TERMINATE".equals(directive)) {
            requestStop(StopReason.TERMINATED);
        }
        return true;
    }

    /** Adopts the server's timings from a registration answer (missing on older servers: defaults stay). */
    private void adopt(Map<String, Object> worker) {
        Long ping = Json.number(worker.get("pingIntervalMs"));
        if (ping != null && ping > 0) {
            pingIntervalMs = ping;
        }
        Long grace = Json.number(worker.get("orphanGraceMs"));
        if (grace != null && grace >= 0) {
            orphanGraceMs = grace;
        }
        Long maxWait = Json.number(worker.get("maxPollWaitMs"));
        if (maxWait != null && maxWait > 0) {
            maxPollWaitMs = maxWait;
        }
    }

    /** One ping; answers the delay until the next (the interval, or a backoff capped by it after a failure). */
    private Duration ping(Backoff backoff, Trouble trouble) throws InterruptedException {
        Session s = currentSession();
        if (s == null) {
            return Duration.ofMillis(pingIntervalMs);
        }
        Heartbeat.Beat beat = heartbeat.ping(s, heldIds(s), Duration.ofMillis(pingIntervalMs), backoff, trouble);
        if (beat.unknown()) {
            expire(s, "its ping was answered " + beat.problem());
            return Duration.ZERO;
        }
        if (beat.reply() == null) {
            return beat.retryIn();
        }
        applyPing(beat.reply());
        return Duration.ofMillis(pingIntervalMs); // the interval the reply carried
    }

    private void applyPing(Map<String, Object> reply) {
        Long interval = Json.number(reply.get("pingIntervalMs"));
        if (interval != null && interval > 0) {
            pingIntervalMs = interval;
        }
        for (Object id : Json.array(reply.get("cancelJobIds"))) {
            HeldJob job = held.get(String.valueOf(id));
            if (job != null && !job.isCancelled()) {
                log.log(Level.INFO, "{0} cancelled by the server: nothing will be pushed for it", job);
                job.cancel();
            }
        }
        applyDirective(Json.string(reply.get("directive")));
    }

    private void applyDirective(String directive) {
        if ("TERMINATE".equals(directive)) {
            requestStop(StopReason.TERMINATED);
            return;
        }
        lock.lock();
        try {
            if (stopReason != null || (state != WorkerState.RUNNING && state != WorkerState.QUIET)) {
                return;
            }
            WorkerState next = "QUIET".equals(directive) ? WorkerState.QUIET
                    : "RUN".equals(directive) ? WorkerState.RUNNING : state;
            if (next != state) {
                log.log(Level.INFO, "directive {0}: {1}", directive,
                        next == WorkerState.QUIET ? "no more polls, held jobs finish" : "polling again");
                state = next;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** After the server forgot the worker: its jobs are given up, then it registers anew (or stops). */
    private boolean renew() throws InterruptedException {
        Session old = currentSession();
        int lost = cancelHeld(old);
        log.log(Level.WARNING, "the server no longer knows {0} (deleted by an operator, or OFFLINE too long); "
                + "{1} held jobs given up", old, lost);
        if (config.onExpired() == OnExpired.EXIT) {
            requestStop(StopReason.EXPIRED);
            return false;
        }
        counters.reregistrations.incrementAndGet();
        return register();
    }

    /** Marks the session forgotten, once; the control thread then re-registers. */
    void expire(Session s, String why) {
        lock.lock();
        try {
            if (session == s && !expired) {
                log.log(Level.WARNING, "{0} is unknown to the server: {1}", s, why);
                expired = true;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    // ---- shutdown -------------------------------------------------------------------------------------------

    /**
     * The shutdown sequence: no more polls (the parked one was aborted by requestStop), the held jobs drain while
     * the ping goes on, then, once the orphan grace has passed since the aborted poll, a last ping lists only the
     * jobs really held (the server releases claims whose answer we never read, without spending an attempt),
     * then unregister. Forced: straight to unregister.
     */
    private void shutdown() throws InterruptedException {
        Session s;
        lock.lock();
        try {
            state = WorkerState.DRAINING;
            abortPoll();
            s = expired ? null : session;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        joinPollThread();
        if (s == null) {
            cancelHeld(null);
            return;
        }
        Backoff backoff = backoff();
        Trouble trouble = new Trouble(log, "ping");
        if (nextPingAt == 0) {
            nextPingAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pingIntervalMs);
        }
        long drainEnd = System.nanoTime() + config.drainTimeout().toNanos();
        pingUntil(s, drainEnd, true, backoff, trouble);
        int left = heldIds(s).size();
        if (left > 0) {
            log.log(Level.WARNING, "{0} jobs still running {1}: given up (cancel flags set, nothing pushed); "
                    + "unregistering fails them, or re-queues them where that is safe", left,
                    isForced() ? "on a forced stop" : "after the drain timeout of " + config.drainTimeout());
            cancelHeld(s);
        }
        if (!isForced() && !isExpired()) {
            long releaseAt;
            lock.lock();
            try {
                releaseAt = pollLost ? pollLostAt + TimeUnit.MILLISECONDS.toNanos(orphanGraceMs + RELEASE_MARGIN_MS)
                        : System.nanoTime();
            } finally {
                lock.unlock();
            }
            pingUntil(s, releaseAt, false, backoff, trouble);
            if (!isForced() && !isExpired()) {
                log.log(Level.DEBUG, "release ping: {0} jobs held", heldIds(s).size());
                ping(backoff, trouble);
                int lost = heartbeat.lostClaims(s, heldIds(s));
                if (lost > 0 && !isForced() && !isExpired()) {
                    // the server does not notice an aborted poll: it stays parked and may claim until its waitMs
                    // ends; such a claim was too young for the release ping
                    log.log(Level.INFO, "the server holds {0} claims for this worker that it never saw; releasing "
                            + "them after the orphan grace", lost);
                    pingUntil(s, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(orphanGraceMs + RELEASE_MARGIN_MS),
                            false, backoff, trouble);
                    if (!isForced() && !isExpired()) {
                        ping(backoff, trouble);
                    }
                }
            }
        }
        if (!isExpired()) {
            heartbeat.unregister(s, backoff());
        }
    }

    /** Pings every interval until the deadline (or, when draining, until the session holds no jobs). */
    private void pingUntil(Session s, long deadline, boolean untilDrained, Backoff backoff, Trouble trouble)
            throws InterruptedException {
        while (!isForced() && !isExpired()) {
            long now = System.nanoTime();
            if (now - deadline >= 0 || (untilDrained && heldIds(s).isEmpty())) {
                return;
            }
            if (now - nextPingAt >= 0) {
                nextPingAt = now + ping(backoff, trouble).toNanos();
                continue;
            }
            lock.lock();
            try {
                if (!forced && !expired && !(untilDrained && heldIds(s).isEmpty())) {
                    changed.awaitNanos(Math.min(deadline, nextPingAt) - now);
                }
            } finally {
                lock.unlock();
            }
        }
    }

    private void finish() {
        lock.lock();
        try {
            abortPoll();
            if (stopReason == null) {
                stopReason = StopReason.FAILED;
            }
            forced = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        boolean abandoned = cancelHeld(null) > 0;
        try {
            joinPollThread();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (ownsHandlers) {
            if (abandoned) {
                handlers.shutdownNow();
            } else {
                handlers.shutdown();
            }
        }
        shutdownClient();
        lock.lock();
        try {
            state = WorkerState.STOPPED;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        log.log(Level.INFO, "worker {0} stopped ({1}); {2}", config.name(), stopReason, counters.snapshot());
        stopped.countDown();
    }

    void fail(RuntimeException e) {
        lock.lock();
        try {
            if (failure == null) {
                failure = e;
            }
            stopReason = StopReason.FAILED;
            abortPoll();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Java 21's HttpClient can be shut down; on 17 its thread ends once the client is unreachable. */
    private void shutdownClient() {
        try {
            HttpClient.class.getMethod("shutdown").invoke(client);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // Java 17: nothing to do
        }
    }

    // ---- the poll thread ------------------------------------------------------------------------------------

    private void startPollThread() {
        lock.lock();
        try {
            pollThread = new Thread(new Poller(config, http, counters, log, this),
                    "blackboard-" + config.name() + "-poll");
            pollThread.setDaemon(false);
            pollThread.start();
        } finally {
            lock.unlock();
        }
    }

    private void joinPollThread() throws InterruptedException {
        Thread thread;
        lock.lock();
        try {
            thread = pollThread;
        } finally {
            lock.unlock();
        }
        if (thread != null && thread != Thread.currentThread()) {
            thread.join();
        }
    }

    /** What the next poll may ask for; the poll thread's {@link #awaitPollSlot()} answers it. */
    record PollSlot(Session session, int limit, long waitMs) {
    }

    /**
     * Waits until a poll may go: registered, on RUN, a slot free; answers the session and the free slots, or
     * null once a stop was asked for.
     */
    PollSlot awaitPollSlot() throws InterruptedException {
        lock.lock();
        try {
            while (stopReason == null && !mayPoll()) {
                changed.await();
            }
            if (stopReason != null) {
                return null;
            }
            return new PollSlot(session, Math.min(config.concurrency() - held.size(), MAX_POLL_LIMIT),
                    Math.min(config.pollWait().toMillis(), maxPollWaitMs));
        } finally {
            lock.unlock();
        }
    }

    /** Under lock: registered, on RUN, and a slot free. */
    private boolean mayPoll() {
        return session != null && !expired && state == WorkerState.RUNNING && held.size() < config.concurrency();
    }

    /** The poll thread is about to send a poll; false if a stop came first. From now on a stop aborts it. */
    boolean pollStarting() {
        lock.lock();
        try {
            if (stopReason != null) {
                return false;
            }
            pollInFlight = true;
            pollAborted = false;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Whether a stop aborted the poll in flight. */
    boolean pollAborted() {
        lock.lock();
        try {
            return pollAborted;
        } finally {
            lock.unlock();
        }
    }

    void pollEnded() {
        lock.lock();
        try {
            pollInFlight = false;
            if (pollAborted) {
                Thread.interrupted(); // a stop's interrupt that raced the answer: not for the next wait
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under lock: aborts the parked poll by interrupting the poll thread, which makes the client cancel the
     * exchange and close its connection (the server stops waiting for us at once, not after {@code waitMs}).
     * The server may have claimed jobs for it that we will never see: noted for the release ping.
     */
    private void abortPoll() {
        if (pollInFlight && !pollAborted && pollThread != null && pollThread != Thread.currentThread()) {
            pollAborted = true;
            pollThread.interrupt();
            markPollLostLocked();
        }
    }

    void markPollLost() {
        lock.lock();
        try {
            markPollLostLocked();
        } finally {
            lock.unlock();
        }
    }

    private void markPollLostLocked() {
        pollLost = true;
        pollLostAt = System.nanoTime();
    }

    /** Takes the claimed jobs: held (and so listed in pings) before their handlers start. */
    void accept(Session s, Http.Reply reply) {
        List<Object> jobs;
        try {
            jobs = Json.array(reply.json());
        } catch (RuntimeException e) {
            log.log(Level.ERROR, "a poll answer was not JSON; its claims are left to the server to release", e);
            markPollLost();
            return;
        }
        for (Object item : jobs) {
            HeldJob heldJob = hold(s, item);
            if (heldJob == null) {
                continue;
            }
            try {
                handlers.execute(() -> runner.run(heldJob));
            } catch (RejectedExecutionException e) {
                // not listed from now on: the server releases the claim after the orphan grace
                log.log(Level.WARNING, "the handler executor refused {0}; leaving it to the server", heldJob);
                held.remove(heldJob.jobId(), heldJob);
            }
        }
    }

    /** A claimed job (a poll's or a push's) held from now on, so listed in pings; null when it is not a job. */
    private HeldJob hold(Session s, Object item) {
        Job job;
        try {
            job = Job.fromJson(Json.object(item));
        } catch (RuntimeException e) {
            log.log(Level.ERROR, "an answer held something that is not a job: " + item, e);
            return null;
        }
        HeldJob heldJob = new HeldJob(job, knownType(job) ? s.blocksById().get(job.functionBlockId()) : null, s,
                progress);
        held.put(job.id(), heldJob);
        counters.received.incrementAndGet();
        return heldJob;
    }

    /** A job of a type this SDK does not know has no handler here: it is pushed as a FAILURE saying so. */
    private static boolean knownType(Job job) {
        try {
            job.type();
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    // ---- jobs -----------------------------------------------------------------------------------------------

    /** Whether the session is the current registration, not one the server forgot. */
    boolean isCurrent(Session s) {
        lock.lock();
        try {
            return session == s && !expired;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether a push of the session's job may claim the next job with it (by /next): the worker would poll now,
     * but for the slot, which the pushing job passes on.
     */
    boolean mayClaimNext(Session s) {
        lock.lock();
        try {
            return stopReason == null && session == s && !expired && state == WorkerState.RUNNING;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A job's handler and push are over. Its slot passes to the first job its push claimed, held from now on and
     * answered to run next on the same thread, or is freed (the poll loop may then claim for it). At once, under
     * the lock, so that the poll loop never counts the slot free in between. Claims that came too late (the worker
     * is stopping, or re-registered) and any beyond the one slot are left to the server.
     */
    HeldJob handOver(HeldJob done, List<Object> claimed) {
        lock.lock();
        try {
            held.remove(done.jobId(), done);
            HeldJob next = null;
            List<Object> left = claimed;
            if (!claimed.isEmpty() && stopReason == null && session == done.session() && !expired) {
                next = hold(done.session(), claimed.get(0));
                left = claimed.subList(1, claimed.size());
            }
            leaveClaims(left);
            changed.signalAll();
            return next;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Claims the worker got but will not run: never listed in a ping, they are released by the server after the
     * orphan grace, without spending an attempt; noted so that a release ping waits for that.
     */
    void leaveClaims(List<Object> claims) {
        if (!claims.isEmpty()) {
            log.log(Level.INFO, "claimed jobs left to the server to release after the orphan grace: {0}",
                    claims.stream().map(c -> Json.object(c).get("id")).toList());
            markPollLost();
        }
    }

    /** Sets the cancel flag of every held job of the session (all sessions for null); answers how many. */
    private int cancelHeld(Session s) {
        int n = 0;
        for (HeldJob job : held.values()) {
            if (s == null || job.session() == s) {
                if (!job.isCancelled()) {
                    job.cancel();
                }
                n++;
            }
        }
        return n;
    }

    private List<String> heldIds(Session s) {
        List<String> ids = new ArrayList<>();
        for (HeldJob job : held.values()) {
            if (job.session() == s) {
                ids.add(job.jobId());
            }
        }
        return ids;
    }

    // ---- small things ---------------------------------------------------------------------------------------

    Backoff backoff() {
        return new Backoff(config.backoffInitial(), config.backoffMax(), config.backoffMultiplier());
    }

    private void setState(WorkerState next) {
        lock.lock();
        try {
            if (stopReason == null) {
                state = next;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    private Session currentSession() {
        lock.lock();
        try {
            return session;
        } finally {
            lock.unlock();
        }
    }

    boolean stopRequested() {
        lock.lock();
        try {
            return stopReason != null;
        } finally {
            lock.unlock();
        }
    }

    private boolean isForced() {
        lock.lock();
        try {
            return forced;
        } finally {
            lock.unlock();
        }
    }

    private boolean isExpired() {
        lock.lock();
        try {
            return expired;
        } finally {
            lock.unlock();
        }
    }

    /** Sleeps, waking early on a stop request; answers whether one came. */
    boolean waitForStop(Duration delay) throws InterruptedException {
        long end = System.nanoTime() + delay.toNanos();
        lock.lock();
        try {
            long left;
            while (stopReason == null && (left = end - System.nanoTime()) > 0) {
                changed.awaitNanos(left);
            }
            return stopReason != null;
        } finally {
            lock.unlock();
        }
    }
}
