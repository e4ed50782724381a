package io.blackboard.sdk.internal;

import io.blackboard.sdk.Outcome;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs one held job on a handler thread: its handler, then its push until the server has the last word. The job
 * stays held (listed in every ping, counted against the slots) until {@link #run} returns.
 */
final class JobRunner {

    private final Http http;
    private final Counters counters;
    private final Logger log;
    private final WorkerRuntime runtime;
    private final Set<Thread> handlerThreads = ConcurrentHashMap.newKeySet();

    JobRunner(Http http, Counters counters, Logger log, WorkerRuntime runtime) {
        this.http = http;
        this.counters = counters;
        this.log = log;
        this.runtime = runtime;
    }

    /** Whether the calling thread is running one of this worker's jobs. */
    boolean isHandlerThread() {
        return handlerThreads.contains(Thread.currentThread());
    }

    void run(HeldJob job) {
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
            runtime.released(job);
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
     * worker was forgotten: dropped), 422 on a SUCCESS (the result schema: a FAILURE with the violations
     * instead). The same body is sent again after an I/O error, a 5xx, a 429 or a 503, with backoff. A cancel
     * stops it.
     */
    private void push(HeldJob job, Outcome first) throws InterruptedException {
        Outcome outcome = first;
        String body = Outcomes.pushJson(job, outcome);
        Backoff backoff = runtime.backoff();
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
                runtime.expire(job.session(), "a push was answered " + reply.describe());
                return;
            }
            if (reply.retryable()) {
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
                body = Outcomes.pushJson(job, outcome);
                continue;
            }
            counters.dropped.incrementAndGet();
            log.log(Level.ERROR, "{0}: the server refused its push ({1}); dropped", job, reply.describe());
            return;
        }
    }
}
