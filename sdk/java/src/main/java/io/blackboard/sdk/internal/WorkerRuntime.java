package io.blackboard.sdk.internal;

import io.blackboard.sdk.BlackboardException;
import io.blackboard.sdk.Job;
import io.blackboard.sdk.OnExpired;
import io.blackboard.sdk.Outcome;
import io.blackboard.sdk.RegistrationRejectedException;
import io.blackboard.sdk.StopReason;
import io.blackboard.sdk.WorkerConfig;
import io.blackboard.sdk.WorkerState;
import io.blackboard.sdk.WorkerStats;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * the handler executor, where the job's push (with its retries) runs after its handler. Every state change
 * happens under {@link #lock} and wakes both threads through {@link #changed}.
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
    private final Map<String, HeldJob> held = new ConcurrentHashMap<>();
    private final Set<Thread> handlerThreads = ConcurrentHashMap.newKeySet();
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
    private boolean sendSdkFields = true;
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
        return handlerThreads.contains(Thread.currentThread());
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
     * Registers the worker, then its function blocks, retrying transient failures with backoff. Answers false
     * when a stop was asked for meanwhile; throws {@link RegistrationRejectedException} on a refusal.
     */
    private boolean register() throws InterruptedException {
        setState(WorkerState.REGISTERING);
        Backoff backoff = backoff();
        Trouble trouble = new Trouble(log, "registration at " + http.base());
        while (!stopRequested()) {
            Http.Reply reply;
            try {
                reply = http.send("POST", "/workers/register", config.registrationToken(), registrationBody());
            } catch (IOException e) {
                Duration delay = backoff.next();
                trouble.failed(e.toString(), delay);
                waitForStop(delay);
                continue;
            }
            int status = reply.status();
            if (status == 200 || status == 201) {
                trouble.recovered();
                Map<String, Object> worker = Json.object(reply.json());
                if (registered(worker)) {
                    return true;
                }
                continue;
            }
            if (status == 400 && sendSdkFields && String.valueOf(reply.problem().get("field")).contains("sdk")) {
                log.log(Level.DEBUG, "the server does not know sdkName/sdkVersion yet: registering without them");
                sendSdkFields = false;
                continue;
            }
            if (!retryable(status)) {
                throw rejected(reply);
            }
            Duration delay = backoff.next(reply.retryAfter());
            trouble.failed(reply.describe(), delay);
            waitForStop(delay);
        }
        return false;
    }

    /** A registration answered: registers the blocks under it and makes it the current session. */
    private boolean registered(Map<String, Object> worker) throws InterruptedException {
        String id = Json.string(worker.get("id"));
        String token = Json.string(worker.get("token"));
        if (id == null || token == null) {
            throw new BlackboardException("the server answered the registration without an id or a token");
        }
        adopt(worker);
        Map<String, WorkerConfig.Block> blocks = registerBlocks(id, token);
        if (blocks == null) {
            return false;
        }
        String directive = Json.string(worker.get("directive"));
        lock.lock();
        try {
            session = new Session(id, token, blocks, ++generation);
            expired = false;
            if (stopReason == null) {
                state = "QUIET".equals(directive) ? WorkerState.QUIET : WorkerState.RUNNING;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        log.log(Level.INFO, "registered worker {0} as {1} ({2} function blocks, concurrency {3})", config.name(),
                id, blocks.size(), config.concurrency());
        if ("TERMINATE".equals(directive)) {
            requestStop(StopReason.TERMINATED);
        }
        return true;
    }

    /** The blocks by the ids the server gave them; null if the new worker vanished already or a stop came. */
    private Map<String, WorkerConfig.Block> registerBlocks(String workerId, String token)
            throws InterruptedException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("workerId", workerId);
        body.put("functionBlocks", config.functionBlocks().stream().map(b -> b.spec().toJson()).toList());
        Backoff backoff = backoff();
        Trouble trouble = new Trouble(log, "function block registration");
        while (!stopRequested()) {
            Http.Reply reply;
            try {
                reply = http.send("POST", "/function-blocks/register", token, body);
            } catch (IOException e) {
                Duration delay = backoff.next();
                trouble.failed(e.toString(), delay);
                waitForStop(delay);
                continue;
            }
            int status = reply.status();
            if (status == 200 || status == 201) {
                trouble.recovered();
                return blocksById(Json.array(reply.json()));
            }
            if (status == 404 || status == 401) {
                log.log(Level.WARNING, "worker {0} was forgotten right after registering ({1}): registering again",
                        workerId, reply.describe());
                return null;
            }
            if (!retryable(status)) {
                String why = status == 409
                        ? "a function block's (name, version) exists on the server with other schemas or flags: "
                                + "publish a new version. "
                        : "the server refused the function blocks: ";
                throw new RegistrationRejectedException(status, "Blackboard worker " + config.name() + ": " + why
                        + reply.describe());
            }
            Duration delay = backoff.next(reply.retryAfter());
            trouble.failed(reply.describe(), delay);
            waitForStop(delay);
        }
        return null;
    }

    private Map<String, WorkerConfig.Block> blocksById(List<Object> answered) {
        Map<String, String> ids = new HashMap<>();
        for (Object item : answered) {
            Map<String, Object> block = Json.object(item);
            ids.put(block.get("name") + "@" + block.get("version"), Json.string(block.get("id")));
        }
        Map<String, WorkerConfig.Block> byId = new HashMap<>();
        for (WorkerConfig.Block block : config.functionBlocks()) {
            String id = ids.get(block.spec().key());
            if (id == null) {
                throw new BlackboardException("the server's answer does not name function block " + block.spec().key());
            }
            byId.put(id, block);
        }
        return Map.copyOf(byId);
    }

    private Map<String, Object> registrationBody() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", config.name());
        if (config.hostname() != null) {
            body.put("hostname", config.hostname());
        }
        if (config.ip() != null) {
            body.put("ip", config.ip());
        }
        body.put("pid", config.pid());
        if (config.version() != null) {
            body.put("version", config.version());
        }
        body.put("labels", config.labels());
        body.put("concurrency", config.concurrency());
        if (sendSdkFields) {
            body.put("sdkName", SDK_NAME);
            body.put("sdkVersion", SDK_VERSION);
        }
        return body;
    }

    private RegistrationRejectedException rejected(Http.Reply reply) {
        String prefix = "Blackboard refused to register worker " + config.name() + " at " + http.base() + " ("
                + reply.describe() + "): ";
        switch (reply.status()) {
            case 401:
                return new RegistrationRejectedException(401, prefix + "the registration token is unknown; check "
                        + "the enrolment token (BLACKBOARD_WORKER_TOKEN) against the server's BLACKBOARD_WORKER_TOKENS");
            case 403:
                return new RegistrationRejectedException(403, prefix + "the token is not a registration token");
            case 404:
            case 405:
                return new RegistrationRejectedException(reply.status(), prefix + "is that a Blackboard server? "
                        + "Check the base URL (BLACKBOARD_URL)");
            default:
                return new RegistrationRejectedException(reply.status(), prefix + "fix the worker's configuration");
        }
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
        Duration interval = Duration.ofMillis(pingIntervalMs);
        if (s == null) {
            return interval;
        }
        counters.pings.incrementAndGet();
        Http.Reply reply;
        try {
            reply = http.send("POST", "/workers/" + s.workerId() + "/ping", s.token(),
                    Map.of("activeJobIds", heldIds(s)));
        } catch (IOException e) {
            Duration delay = min(backoff.next(), interval);
            trouble.failed(e.toString(), delay);
            return delay;
        }
        if (reply.status() == 200) {
            backoff.reset();
            trouble.recovered();
            applyPing(Json.object(reply.json()));
            return Duration.ofMillis(pingIntervalMs);
        }
        if (reply.status() == 404 || reply.status() == 401) {
            expire(s, "its ping was answered " + reply.describe());
            return Duration.ZERO;
        }
        Duration delay = min(backoff.next(reply.retryAfter()), interval);
        trouble.failed(reply.describe(), delay);
        return delay;
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
                int lost = lostClaims(s);
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
            unregister(s);
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

    /** How many jobs the server has POLLED for this worker that it does not hold (best effort: 0 on errors). */
    private int lostClaims(Session s) throws InterruptedException {
        try {
            Http.Reply reply = http.send("GET", "/workers/" + s.workerId() + "/jobs?status=POLLED&limit=1000",
                    s.token(), null);
            if (!reply.ok()) {
                return 0;
            }
            List<String> held = heldIds(s);
            int lost = 0;
            for (Object item : Json.array(reply.json())) {
                if (!held.contains(Json.string(Json.object(item).get("id")))) {
                    lost++;
                }
            }
            return lost;
        } catch (IOException | RuntimeException e) {
            log.log(Level.DEBUG, "could not list the server's claims: " + e);
            return 0;
        }
    }

    private void unregister(Session s) throws InterruptedException {
        Backoff backoff = backoff();
        for (int attempt = 1; attempt <= 3; attempt++) {
            try {
                Http.Reply reply = http.send("POST", "/workers/" + s.workerId() + "/unregister", s.token(), null);
                if (reply.ok()) {
                    log.log(Level.INFO, "unregistered {0}", s);
                    return;
                }
                if (!retryable(reply.status())) {
                    log.log(Level.WARNING, "unregistering {0} answered {1}", s, reply.describe());
                    return;
                }
                log.log(Level.WARNING, "unregistering {0} answered {1}; trying again", s, reply.describe());
                Thread.sleep(min(backoff.next(reply.retryAfter()), Duration.ofSeconds(2)).toMillis());
            } catch (IOException e) {
                log.log(Level.WARNING, "unregistering {0} failed: {1}", s, e.toString());
                Thread.sleep(min(backoff.next(), Duration.ofSeconds(2)).toMillis());
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

    private void fail(RuntimeException e) {
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
            pollThread = new Thread(this::pollLoop, "blackboard-" + config.name() + "-poll");
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

    private void pollLoop() {
        Backoff backoff = backoff();
        Trouble trouble = new Trouble(log, "poll");
        try {
            while (true) {
                Session s;
                int limit;
                lock.lock();
                try {
                    while (stopReason == null && !mayPoll()) {
                        changed.await();
                    }
                    if (stopReason != null) {
                        return;
                    }
                    s = session;
                    limit = Math.min(config.concurrency() - held.size(), MAX_POLL_LIMIT);
                } finally {
                    lock.unlock();
                }
                Http.Reply reply;
                try {
                    reply = poll(s, limit);
                } catch (IOException e) {
                    markPollLost(); // the answer may have carried claims
                    Duration delay = backoff.next();
                    trouble.failed(e.toString(), delay);
                    waitForStop(delay);
                    continue;
                }
                if (reply == null) {
                    continue; // a stop aborted it (and noted the claims it may have lost)
                }
                if (reply.status() == 200) {
                    backoff.reset();
                    trouble.recovered();
                    accept(s, reply);
                } else if (reply.status() == 404 || reply.status() == 401) {
                    expire(s, "its poll was answered " + reply.describe());
                } else {
                    Duration delay = backoff.next(reply.retryAfter());
                    trouble.failed(reply.describe(), delay);
                    waitForStop(delay);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            log.log(Level.ERROR, "the poll loop failed; stopping the worker", e);
            fail(e instanceof RuntimeException r ? r : new BlackboardException("the poll loop failed", e));
        }
    }

    /** Under lock: registered, on RUN, and a slot free. */
    private boolean mayPoll() {
        return session != null && !expired && state == WorkerState.RUNNING && held.size() < config.concurrency();
    }

    /**
     * Sends one poll and waits for it; null when a stop came first or aborted it. While it is parked,
     * {@link #abortPoll()} interrupts this thread, which makes the client cancel the exchange and close its
     * connection: the server stops waiting at once instead of after {@code waitMs}.
     */
    private Http.Reply poll(Session s, int limit) throws IOException, InterruptedException {
        long waitMs = Math.min(config.pollWait().toMillis(), maxPollWaitMs);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("workerId", s.workerId());
        body.put("limit", limit);
        body.put("waitMs", waitMs);
        lock.lock();
        try {
            if (stopReason != null) {
                return null;
            }
            pollInFlight = true;
            pollAborted = false;
        } finally {
            lock.unlock();
        }
        counters.polls.incrementAndGet();
        try {
            return http.send("POST", "/blackboard/job", s.token(), body,
                    Duration.ofMillis(waitMs).plus(config.requestTimeout()));
        } catch (InterruptedException | IOException e) {
            lock.lock();
            try {
                if (pollAborted) {
                    return null;
                }
            } finally {
                lock.unlock();
            }
            throw e;
        } finally {
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
    }

    /** Under lock: aborts the parked poll; the server may have claimed jobs for it that we will never see. */
    private void abortPoll() {
        if (pollInFlight && !pollAborted && pollThread != null && pollThread != Thread.currentThread()) {
            pollAborted = true;
            pollThread.interrupt();
            markPollLostLocked();
        }
    }

    private void markPollLost() {
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
    private void accept(Session s, Http.Reply reply) {
        List<Object> jobs;
        try {
            jobs = Json.array(reply.json());
        } catch (RuntimeException e) {
            log.log(Level.ERROR, "a poll answer was not JSON; its claims are left to the server to release", e);
            markPollLost();
            return;
        }
        for (Object item : jobs) {
            Job job;
            try {
                job = Job.fromJson(Json.object(item));
            } catch (RuntimeException e) {
                log.log(Level.ERROR, "a poll answer held something that is not a job: " + item, e);
                continue;
            }
            HeldJob heldJob = new HeldJob(job, s.blocksById().get(job.functionBlockId()), s);
            held.put(job.id(), heldJob);
            counters.received.incrementAndGet();
            try {
                handlers.execute(() -> runJob(heldJob));
            } catch (RejectedExecutionException e) {
                // not listed from now on: the server releases the claim after the orphan grace
                log.log(Level.WARNING, "the handler executor refused {0}; leaving it to the server", heldJob);
                held.remove(job.id(), heldJob);
            }
        }
    }

    // ---- jobs -----------------------------------------------------------------------------------------------

    private void runJob(HeldJob job) {
        handlerThreads.add(Thread.currentThread());
        try {
            Outcome outcome = handle(job);
            Thread.interrupted(); // an interrupt the handler caught must not abort its push
            if (job.isCancelled()) {
                counters.cancelled.incrementAndGet();
                log.log(Level.INFO, "{0} ended cancelled: nothing pushed", job);
            } else {
                push(job, outcome);
            }
        } catch (InterruptedException e) {
            counters.dropped.incrementAndGet();
            log.log(Level.WARNING, "{0}: interrupted while pushing; the server fails or re-queues it", job);
        } catch (RuntimeException | Error e) {
            counters.dropped.incrementAndGet();
            log.log(Level.ERROR, job + ": the SDK failed to push it", e);
        } finally {
            handlerThreads.remove(Thread.currentThread());
            release(job);
        }
    }

    private Outcome handle(HeldJob job) {
        if (job.block() == null) {
            return Outcomes.noHandler(job.job().functionBlockId());
        }
        try {
            Outcome outcome = job.block().handler().dispatch(job);
            return outcome == null ? Outcome.success() : outcome;
        } catch (Throwable t) {
            if (!job.isCancelled()) {
                log.log(Level.INFO, "{0} ({1}) threw {2}: pushing a FAILURE", job, job.spec().key(), t.toString());
            }
            return Outcomes.fromException(t);
        }
    }

    /**
     * Pushes until the server has the last word: 200 (done), 409 (not ours any more: dropped), 404/401 (the
     * worker was forgotten: dropped), 422 (the result schema: a FAILURE with the violations instead). The same
     * body is sent again after an I/O error, a 5xx, a 429 or a 503, with backoff, while the job stays held and
     * so listed in every ping. A cancel stops it.
     */
    private void push(HeldJob job, Outcome first) throws InterruptedException {
        Outcome outcome = first;
        String body = pushBody(job, outcome);
        Backoff backoff = backoff();
        Trouble trouble = new Trouble(log, "push of " + job);
        boolean replaced = false;
        while (true) {
            if (job.isCancelled()) {
                counters.cancelled.incrementAndGet();
                log.log(Level.INFO, "{0} cancelled while its push was retried: dropped", job);
                return;
            }
            Http.Reply reply;
            try {
                reply = http.send("POST", "/blackboard/job/result", job.session().token(), body);
            } catch (IOException e) {
                counters.pushRetries.incrementAndGet();
                Duration delay = backoff.next();
                trouble.failed(e.toString(), delay);
                job.awaitCancellation(delay);
                continue;
            }
            int status = reply.status();
            if (status == 200) {
                trouble.recovered();
                (outcome.isSuccess() ? counters.succeeded : counters.failed).incrementAndGet();
                log.log(Level.DEBUG, "{0} pushed {1}", job, outcome.status());
                return;
            }
            if (status == 409) {
                counters.conflicts.incrementAndGet();
                log.log(Level.INFO, "{0}: push refused, the claim is no longer this worker''s ({1}); result dropped",
                        job, reply.describe());
                return;
            }
            if (status == 404 || status == 401) {
                counters.dropped.incrementAndGet();
                expire(job.session(), "a push was answered " + reply.describe());
                return;
            }
            if (retryable(status)) {
                counters.pushRetries.incrementAndGet();
                Duration delay = backoff.next(reply.retryAfter());
                trouble.failed(reply.describe(), delay);
                job.awaitCancellation(delay);
                continue;
            }
            if (outcome.isSuccess() && !replaced) {
                replaced = true;
                if (status == 422) {
                    counters.schemaViolations.incrementAndGet();
                    outcome = Outcomes.schemaViolation(reply.problem());
                } else {
                    outcome = Outcomes.resultRejected(status, reply.problem(), reply.describe());
                }
                log.log(Level.WARNING, "{0}: the server refused its result ({1}); pushing a FAILURE instead", job,
                        reply.describe());
                body = pushBody(job, outcome);
                continue;
            }
            counters.dropped.incrementAndGet();
            log.log(Level.ERROR, "{0}: the server refused its push ({1}); dropped", job, reply.describe());
            return;
        }
    }

    private static String pushBody(HeldJob job, Outcome outcome) {
        return Outcomes.pushJson(job, outcome);
    }

    private void release(HeldJob job) {
        held.remove(job.jobId(), job);
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
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

    private Backoff backoff() {
        return new Backoff(config.backoffInitial(), config.backoffMax(), config.backoffMultiplier());
    }

    private static boolean retryable(int status) {
        return status >= 500 || status == 429 || status == 408;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
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

    private boolean stopRequested() {
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
    private boolean waitForStop(Duration delay) throws InterruptedException {
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
