package io.blackboard.sdk.internal;

import io.blackboard.sdk.BlackboardException;
import io.blackboard.sdk.WorkerConfig;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The poll thread's loop: one long poll at a time, for exactly the free slots, only while registered, on RUN
 * and with a slot free. Re-polls at once after an answer, backs off after errors ({@code Retry-After} on 429
 * and 503). The runtime aborts a parked poll by interrupting this thread (see {@link WorkerRuntime#abortPoll}).
 */
final class Poller implements Runnable {

    private final WorkerConfig config;
    private final Http http;
    private final Counters counters;
    private final Logger log;
    private final WorkerRuntime runtime;

    Poller(WorkerConfig config, Http http, Counters counters, Logger log, WorkerRuntime runtime) {
        this.config = config;
        this.http = http;
        this.counters = counters;
        this.log = log;
        this.runtime = runtime;
    }

    @Override
    public void run() {
        Backoff backoff = runtime.backoff();
        Trouble trouble = new Trouble(log, "poll");
        try {
            WorkerRuntime.PollSlot slot;
            while ((slot = runtime.awaitPollSlot()) != null) {
                Http.Reply reply;
                try {
                    reply = poll(slot);
                } catch (IOException e) {
                    runtime.markPollLost(); // the answer may have carried claims
                    Duration delay = backoff.next();
                    trouble.failed(e.toString(), delay);
                    runtime.waitForStop(delay);
                    continue;
                }
                if (reply == null) {
                    continue; // a stop aborted it (and noted the claims it may have lost)
                }
                if (reply.status() == 200) {
                    backoff.reset();
                    trouble.recovered();
                    runtime.accept(slot.session(), reply);
                } else if (reply.status() == 404 || reply.status() == 401) {
                    runtime.expire(slot.session(), "its poll was answered " + reply.describe());
                } else {
                    Duration delay = backoff.next(reply.retryAfter());
                    trouble.failed(reply.describe(), delay);
                    runtime.waitForStop(delay);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            log.log(Level.ERROR, "the poll loop failed; stopping the worker", e);
            runtime.fail(e instanceof RuntimeException r ? r : new BlackboardException("the poll loop failed", e));
        }
    }

    /** Sends one poll and waits for it; null when a stop came first or aborted it. */
    private Http.Reply poll(WorkerRuntime.PollSlot slot) throws IOException, InterruptedException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("workerId", slot.session().workerId());
        body.put("limit", slot.limit());
        body.put("waitMs", slot.waitMs());
        if (!runtime.pollStarting()) {
            return null;
        }
        counters.polls.incrementAndGet();
        try {
            return http.send("POST", "/blackboard/job", slot.session().token(), body,
                    Duration.ofMillis(slot.waitMs()).plus(config.requestTimeout()));
        } catch (InterruptedException | IOException e) {
            if (runtime.pollAborted()) {
                return null;
            }
            throw e;
        } finally {
            runtime.pollEnded();
        }
    }
}
