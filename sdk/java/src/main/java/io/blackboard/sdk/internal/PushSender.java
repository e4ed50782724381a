package io.blackboard.sdk.internal;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Sends one push. To a server with API 1.1 it goes as {@code POST /blackboard/job/next}, which lands it and claims
 * up to {@code limit} next jobs in the same transaction (a busy worker's one round trip per job); to an older one
 * as {@code POST /blackboard/job/result}. Either way the answer reads as a single push's: the item's status and
 * problem when /next was answered 200, else the status of the request as a whole.
 */
final class PushSender {

    /**
     * What the server said of a push: {@code reply} is the item's answer when {@code item} is set (its status and
     * problem; the worker is known, the request went through), else the request's own; {@code jobs} were claimed
     * with it (always empty for /result).
     */
    record Answer(Http.Reply reply, boolean item, List<Object> jobs) {
    }

    private final Http http;
    private final WorkerRuntime runtime;

    PushSender(Http http, WorkerRuntime runtime) {
        this.http = http;
        this.runtime = runtime;
    }

    /** Sends {@code push} (a push body, JSON) for {@code job}; {@code limit} is ignored by servers before 1.1. */
    Answer send(HeldJob job, String push, int limit) throws IOException, InterruptedException {
        Session s = job.session();
        if (!s.hasNext()) {
            return new Answer(http.send("POST", "/blackboard/job/result", s.token(), push), false, List.of());
        }
        Http.Reply reply;
        if (limit == 0) {
            reply = http.send("POST", "/blackboard/job/next", s.token(), nextBody(s, push, 0));
        } else {
            try {
                reply = http.sendOnce("POST", "/blackboard/job/next", s.token(), nextBody(s, push, limit));
            } catch (IOException e) {
                if (!Http.resendable(e)) {
                    throw e;
                }
                // Http's one silent resend (see there), but without the claim: the server may have read it after all
                runtime.markPollLost();
                reply = http.sendOnce("POST", "/blackboard/job/next", s.token(), nextBody(s, push, 0));
            }
        }
        if (reply.status() == 200) {
            return item(reply);
        }
        if (unknownPath(reply)) {
            s.nextMissing();
            return new Answer(http.send("POST", "/blackboard/job/result", s.token(), push), false, List.of());
        }
        return new Answer(reply, false, List.of());
    }

    /**
     * An older replica behind the same address (a rolling upgrade) does not know /next: its security answers a
     * worker's token 403 there, or the path 404 or 405, none of them the problem of a deleted worker. Not the
     * push's fault, so it goes by /result instead, where such a replica answers it as it should.
     */
    static boolean unknownPath(Http.Reply reply) {
        int status = reply.status();
        if (status != 403 && status != 404 && status != 405) {
            return false;
        }
        try {
            return !"/problems/worker-not-found".equals(Json.object(reply.json()).get("type"));
        } catch (RuntimeException e) {
            return true; // not even a problem document: not this server's answer about the worker
        }
    }

    /** The push is embedded as it is, so that every resend sends the very same result. */
    private static String nextBody(Session s, String push, int limit) {
        return "{\"workerId\":" + Json.write(s.workerId()) + ",\"results\":[" + push + "],\"limit\":" + limit + "}";
    }

    /**
     * The item of a 200 answer. An answer that does not read as one is taken for a lost one (the caller resends
     * the push, which is safe: a push that landed answers 200 again).
     */
    private static Answer item(Http.Reply reply) throws IOException {
        try {
            Map<String, Object> answer = Json.object(reply.json());
            List<Object> results = Json.array(answer.get("results"));
            Map<String, Object> item = Json.object(results.get(0));
            Number status = (Number) item.get("status");
            Object problem = item.get("problem");
            String problemJson = problem == null ? null : Json.write(problem);
            return new Answer(new Http.Reply(status.intValue(), problemJson, Optional.empty()), true,
                    Json.array(answer.get("jobs")));
        } catch (RuntimeException e) {
            throw new IOException("an answer of /blackboard/job/next that is not {results: [{status, ...}], jobs}: "
                    + reply.describe(), e);
        }
    }
}
