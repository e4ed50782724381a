package io.blackboard.sdk.internal;

import io.blackboard.sdk.Outcome;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs held jobs on a handler thread: a job's handler, then its push until the server has the last word. The job
 * stays held (listed in every ping, counted against the slots) until its push is over; then its slot is freed, or,
 * when the push went by {@code /next} and claimed the next job, passed to that job, which runs next on this thread.
 */
final class JobRunner {

    private final PushSender sender;
    private final Counters counters;
    private final Logger log;
    private final WorkerRuntime runtime;
    private final Set<Thread> handlerThreads = ConcurrentHashMap.newKeySet();

    JobRunner(Http http, Counters counters, Logger log, WorkerRuntime runtime) {
        this.sender = new PushSender(http, runtime);
        this.counters = counters;
        this.log = log;
        this.runtime = runtime;
    }

    /** Whether the calling thread is running one of this worker's jobs. */
    boolean isHandlerThread() {
        return handlerThreads.contains(Thread.currentThread());
    }

    /** Runs the job, then each job its push claimed (one slot, one thread: never more handlers than slots). */
    void run(HeldJob first) {
        handlerThreads.add(Thread.currentThread());
        try {
            HeldJob job = first;
            while (job != null) {
                job = runOne(job);
            }
        } finally {
            handlerThreads.remove(Thread.currentThread());
        }
    }

    /** Runs one job and pushes its outcome; answers the job its slot passed to, or null when it was freed. */
    private HeldJob runOne(HeldJob job) {
        List<Object> claimed = List.of();
        HeldJob next = null;
        try {
            Outcome outcome = handle(job);
            Thread.interrupted(); // an interrupt the handler caught must not abort its push
            if (job.isCancelled()) {
                counters.cancelled.incrementAndGet();
                log.log(Level.INFO, "{0} ended cancelled: nothing pushed", job);
            } else {
                claimed = push(job, outcome);
            }
        } catch (InterruptedException e) {
            counters.dropped.incrementAndGet();
            log.log(Level.WARNING, "{0}: interrupted while pushing; the server fails or re-queues it", job);
        } catch (RuntimeException | Error e) {
            counters.dropped.incrementAndGet();
            log.log(Level.ERROR, job + ": the SDK failed to push it", e);
        } finally {
            next = runtime.handOver(job, claimed);
        }
        return next;
    }
    private Outcome handle(HeldJob job) {
        if (job.block() == null) {
            return Outcomes.noHandler(job.job().functionBlockId(), job.job().json().get("type"));
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
     * Pushes until the server has the last word: 200 (done), 409 (not ours any more: dropped), 404/401 on the
     * request (the worker was forgotten: dropped), 422 on a SUCCESS (the result schema: a FAILURE with the
     * violations instead). The same body is sent again after an I/O error, a 5xx, a 429 or a 503, with backoff. A
     * cancel stops it. Answers the jobs claimed with the push's last word (by /next only; else none).
     *
     * <p>Only the first send asks /next for a job, and only when the worker would poll now: a resend after a lost
     * answer must not claim again (the lost claim is the server's to release, as a lost poll's), and a FAILURE sent
     * instead of a refused SUCCESS still needs the slot. Jobs that come with an answer that is not the push's last
     * word are left to the server for the same reason: the slot they would take is still the pushing job's.
     */
    private List<Object> push(HeldJob job, Outcome first) throws InterruptedException {
        Outcome outcome = first;
        String body = Outcomes.pushJson(job, outcome);
        Backoff backoff = runtime.backoff();
        Trouble trouble = new Trouble(log, "push of " + job);
        boolean replaced = false;
        boolean firstSend = true;
        while (true) {
            if (job.isCancelled()) {
                counters.cancelled.incrementAndGet();
                log.log(Level.INFO, "{0} cancelled while its push was retried: dropped", job);
                return List.of();
            }
            int limit = firstSend && runtime.mayClaimNext(job.session()) ? 1 : 0;
            firstSend = false;
            PushSender.Answer answer;
            try {
                answer = sender.send(job, body, limit);
            } catch (IOException e) {
                if (limit > 0) {
                    runtime.markPollLost(); // the lost answer may have carried a claim
                }
                counters.pushRetries.incrementAndGet();
                Duration delay = backoff.next();
                trouble.failed(e.toString(), delay);
                job.awaitCancellation(delay);
                continue;
            }
            Http.Reply reply = answer.reply();
            int status = reply.status();
            if (status == 200) {
                trouble.recovered();
                (outcome.isSuccess() ? counters.succeeded : counters.failed).incrementAndGet();
                log.log(Level.DEBUG, "{0} pushed {1}", job, outcome.status());
                return answer.jobs();
            }
            if (status == 409) {
                counters.conflicts.incrementAndGet();
                log.log(Level.INFO, "{0}: push refused, the claim is no longer this worker''s ({1}); result dropped",
                        job, reply.describe());
                return answer.jobs();
            }
            if (!answer.item() && (status == 404 || status == 401)) {
                counters.dropped.incrementAndGet();
                runtime.expire(job.session(), "a push was answered " + reply.describe());
                return List.of();
            }
            if (answer.item() && status == 404) {
                // the request went through, so the worker is known: it is the job the server does not know
                counters.dropped.incrementAndGet();
                log.log(Level.WARNING, "{0}: the server does not know the job ({1}); result dropped", job,
                        reply.describe());
                return answer.jobs();
            }
            if (!reply.retryable() && (!outcome.isSuccess() || replaced)) {
                counters.dropped.incrementAndGet();
                log.log(Level.ERROR, "{0}: the server refused its push ({1}); dropped", job, reply.describe());
                return answer.jobs();
            }
            runtime.leaveClaims(answer.jobs());
            if (reply.retryable()) {
                if (limit > 0 && !answer.item()) {
                    runtime.markPollLost(); // a gateway's 5xx may hide an answer that carried a claim
                }
                counters.pushRetries.incrementAndGet();
                Duration delay = backoff.next(reply.retryAfter());
                trouble.failed(reply.describe(), delay);
                job.awaitCancellation(delay);
                continue;
            }
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
        }
    }
}
