package io.blackboard.sdk.internal;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The control thread's calls made with the worker's own token: the ping (the lease), the listing of the claims
 * the server has for the worker, and unregister. What the answers mean for the worker's state is the runtime's
 * to decide.
 */
final class Heartbeat {

    /**
     * A ping's result: the reply when it was answered 200; {@code unknown} when the server no longer knows the
     * worker (404, or 401 on its token); else how long to wait before the next try.
     */
    record Beat(Map<String, Object> reply, boolean unknown, String problem, Duration retryIn) {
    }

    private final Http http;
    private final Counters counters;
    private final Logger log;

    Heartbeat(Http http, Counters counters, Logger log) {
        this.http = http;
        this.counters = counters;
        this.log = log;
    }

    /** One ping listing {@code activeJobIds}; after a failure the retry waits a backoff capped by the interval. */
    Beat ping(Session s, List<String> activeJobIds, Duration interval, Backoff backoff, Trouble trouble)
            throws InterruptedException {
        counters.pings.incrementAndGet();
        Http.Reply reply;
        try {
            reply = http.send("POST", "/workers/" + s.workerId() + "/ping", s.token(),
                    Map.of("activeJobIds", activeJobIds));
        } catch (IOException e) {
            Duration delay = min(backoff.next(), interval);
            trouble.failed(e.toString(), delay);
            return new Beat(null, false, e.toString(), delay);
        }
        if (reply.status() == 200) {
            backoff.reset();
            trouble.recovered();
            return new Beat(Json.object(reply.json()), false, null, interval);
        }
        if (reply.status() == 404 || reply.status() == 401) {
            return new Beat(null, true, reply.describe(), Duration.ZERO);
        }
        Duration delay = min(backoff.next(reply.retryAfter()), interval);
        trouble.failed(reply.describe(), delay);
        return new Beat(null, false, reply.describe(), delay);
    }

    /** How many jobs the server has POLLED for this worker among those it does not hold (best effort: 0 on errors). */
    int lostClaims(Session s, List<String> held) throws InterruptedException {
        try {
            Http.Reply reply = http.send("GET", "/workers/" + s.workerId() + "/jobs?status=POLLED&limit=1000",
                    s.token(), null);
            if (!reply.ok()) {
                return 0;
            }
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

    /** Unregisters, trying up to three times; a refusal (the worker is gone already, say) is only logged. */
    void unregister(Session s, Backoff backoff) throws InterruptedException {
        for (int attempt = 1; attempt <= 3; attempt++) {
            try {
                Http.Reply reply = http.send("POST", "/workers/" + s.workerId() + "/unregister", s.token(), null);
                if (reply.ok()) {
                    log.log(Level.INFO, "unregistered {0}", s);
                    return;
                }
                if (!reply.retryable()) {
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

    static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
