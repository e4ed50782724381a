package io.blackboard.sdk.internal;

import io.blackboard.sdk.BlackboardException;
import io.blackboard.sdk.RegistrationRejectedException;
import io.blackboard.sdk.WorkerConfig;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Registers the worker with the enrolment token, then its function blocks with the worker's own token:
 * transient failures (I/O, 5xx, 429, 408) are retried with backoff for as long as it takes, a refusal is a
 * {@link RegistrationRejectedException} at once (a bad token must not turn into a retry storm).
 */
final class Registrar {

    /** A registration that went through: the worker's id and token, its blocks by id, the server's answer. */
    record Registered(String workerId, String token, Map<String, WorkerConfig.Block> blocksById,
            Map<String, Object> answer) {
    }

    private final WorkerConfig config;
    private final Http http;
    private final Logger log;
    private final WorkerRuntime runtime;
    private boolean sendSdkFields = true;

    Registrar(WorkerConfig config, Http http, Logger log, WorkerRuntime runtime) {
        this.config = config;
        this.http = http;
        this.log = log;
        this.runtime = runtime;
    }

    /** Registers until it went through; null when a stop was asked for meanwhile. */
    Registered register() throws InterruptedException {
        Backoff backoff = runtime.backoff();
        Trouble trouble = new Trouble(log, "registration at " + http.base());
        while (!runtime.stopRequested()) {
            Http.Reply reply = send("/workers/register", config.registrationToken(), body(), backoff, trouble);
            if (reply == null) {
                continue;
            }
            if (reply.status() == 200 || reply.status() == 201) {
                trouble.recovered();
                Map<String, Object> worker = Json.object(reply.json());
                String id = Json.string(worker.get("id"));
                String token = Json.string(worker.get("token"));
                if (id == null || token == null) {
                    throw new BlackboardException("the server answered the registration without an id or a token");
                }
                Map<String, WorkerConfig.Block> blocks = registerBlocks(id, token);
                if (blocks != null) {
                    return new Registered(id, token, blocks, worker);
                }
                continue; // the new worker vanished at once, or a stop came: see the loop's condition
            }
            if (reply.status() == 400 && sendSdkFields && String.valueOf(reply.problem().get("field")).contains("sdk")) {
                log.log(Level.DEBUG, "the server does not know sdkName/sdkVersion yet: registering without them");
                sendSdkFields = false;
                continue;
            }
            if (!reply.retryable()) {
                throw rejected(reply);
            }
            waitOut(reply, backoff, trouble);
        }
        return null;
    }

    /** The blocks by the ids the server gave them; null if the new worker vanished already or a stop came. */
    private Map<String, WorkerConfig.Block> registerBlocks(String workerId, String token)
            throws InterruptedException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("workerId", workerId);
        body.put("functionBlocks", config.functionBlocks().stream().map(b -> b.spec().toJson()).toList());
        Backoff backoff = runtime.backoff();
        Trouble trouble = new Trouble(log, "function block registration");
        while (!runtime.stopRequested()) {
            Http.Reply reply = send("/function-blocks/register", token, body, backoff, trouble);
            if (reply == null) {
                continue;
            }
            if (reply.status() == 200 || reply.status() == 201) {
                trouble.recovered();
                return blocksById(Json.array(reply.json()));
            }
            if (reply.status() == 404 || reply.status() == 401) {
                log.log(Level.WARNING, "worker {0} was forgotten right after registering ({1}): registering again",
                        workerId, reply.describe());
                return null;
            }
            if (!reply.retryable()) {
                String why = reply.status() == 409
                        ? "a function block's (name, version) exists on the server with other schemas or flags: "
                                + "publish a new version. "
                        : "the server refused the function blocks: ";
                throw new RegistrationRejectedException(reply.status(), "Blackboard worker " + config.name() + ": "
                        + why + reply.describe());
            }
            waitOut(reply, backoff, trouble);
        }
        return null;
    }

    /** One POST; null when it did not reach the server, after reporting it and waiting out the backoff. */
    private Http.Reply send(String path, String token, Object body, Backoff backoff, Trouble trouble)
            throws InterruptedException {
        try {
            return http.send("POST", path, token, body);
        } catch (IOException e) {
            Duration delay = backoff.next();
            trouble.failed(e.toString(), delay);
            runtime.waitForStop(delay);
            return null;
        }
    }

    /** A retryable answer: reported, then the backoff (or the server's Retry-After) waited out. */
    private void waitOut(Http.Reply reply, Backoff backoff, Trouble trouble) throws InterruptedException {
        Duration delay = backoff.next(reply.retryAfter());
        trouble.failed(reply.describe(), delay);
        runtime.waitForStop(delay);
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

    private Map<String, Object> body() {
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
            body.put("sdkName", WorkerRuntime.SDK_NAME);
            body.put("sdkVersion", WorkerRuntime.SDK_VERSION);
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
}
