package io.blackboard.sdk.internal;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Sends a held job's progress reports ({@code POST /blackboard/job/progress}), from its handler's thread. Best
 * effort: never retried and never thrown (the pings keep the lease anyway). An answer that the claim is lost
 * (409; 404 for the job; 404 or 401 for the worker) cancels the job as a ping's {@code cancelJobIds} would, and
 * a forgotten worker is expired as any call of its would; a replica that does not know the path gets no more
 * reports from this registration.
 */
final class ProgressReporter {

    static final String PATH = "/blackboard/job/progress";
    /** The handler waits for its report: never long. */
    private static final Duration MAX_TIMEOUT = Duration.ofSeconds(5);

    private final Http http;
    private final WorkerRuntime runtime;
    private final Logger log;
    private final Duration timeout;

    ProgressReporter(Http http, WorkerRuntime runtime, Logger log, Duration requestTimeout) {
        this.http = http;
        this.runtime = runtime;
        this.log = log;
        this.timeout = requestTimeout.compareTo(MAX_TIMEOUT) < 0 ? requestTimeout : MAX_TIMEOUT;
    }

    /** One report of a job; answers whether the server recorded it. */
    boolean report(HeldJob job, int percent, String message) {
        Session s = job.session();
        if (!s.hasProgress() || !runtime.isCurrent(s)) {
            return false;
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("jobId", job.jobId());
        body.put("workerId", s.workerId());
        body.put("attempt", job.attempt());
        body.put("percent", percent);
        if (message != null) {
            body.put("message", message);
        }
        Http.Reply reply;
        try {
            reply = http.send("POST", PATH, s.token(), body, timeout);
        } catch (IOException e) {
            log.log(Level.DEBUG, "{0}: progress not reported ({1})", job, e.toString());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return answered(job, s, reply);
    }

    private boolean answered(HeldJob job, Session s, Http.Reply reply) {
        int status = reply.status();
        Object type = reply.problem().get("type");
        if (status == 200) {
            try {
                return Boolean.TRUE.equals(Json.object(reply.json()).get("recorded"));
            } catch (RuntimeException notJson) {
                return false;
            }
        }
        boolean workerGone = status == 401 || (status == 404 && "/problems/worker-not-found".equals(type));
        if (status == 409 || workerGone || (status == 404 && "/problems/job-not-found".equals(type))) {
            if (!job.isCancelled()) {
                log.log(Level.INFO, "{0}: progress refused, the claim is no longer this worker''s ({1}); cancelled: "
                        + "nothing will be pushed for it", job, reply.describe());
                job.cancel();
            }
            if (workerGone) {
                runtime.expire(s, "a progress report was answered " + reply.describe());
            }
        } else if (PushSender.unknownPath(reply)) {
            s.progressMissing();
            log.log(Level.INFO, "this server does not take progress reports ({0} on {1}): not sending them",
                    reply.describe(), PATH);
        } else {
            log.log(reply.retryable() ? Level.DEBUG : Level.WARNING, "{0}: progress not recorded ({1})", job,
                    reply.describe());
        }
        return false;
    }
}
