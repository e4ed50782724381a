package io.blackboard.chaos;

import io.blackboard.Api;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;

/**
 * A worker as an SDK would run it: pollers that long-poll and push (single or batched), and a
 * heartbeat listing the jobs it holds. It fails over between replicas, and can crash: stop
 * dead with jobs in hand, as after kill -9.
 */
final class SimWorker {

    final UUID id;
    final int concurrency;
    private final String token;
    private final Supplier<Api> replicas;
    private final Set<UUID> active = ConcurrentHashMap.newKeySet();
    /** Jobs whose push this worker saw answered 200. */
    final Set<UUID> acknowledged = ConcurrentHashMap.newKeySet();
    final AtomicInteger maxHeld = new AtomicInteger();
    final AtomicInteger overLimit = new AtomicInteger();
    final AtomicInteger conflicts = new AtomicInteger();
    /** Answers that no fault excuses: a 5xx other than 503, or a 503 without Retry-After. */
    final ServerErrors serverErrors = new ServerErrors();
    /** Polls that this worker gave up on before their answer came (its client timed out). */
    final AtomicInteger timedOut = new AtomicInteger();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopped;
    private volatile int waitMs = 1000;
    /** How long a poll's answer is awaited, sent as Blackboard-Timeout-Ms as the SDKs do; null: 60 s, not sent. */
    private volatile Duration pollTimeout;

    private SimWorker(UUID id, String token, int concurrency, Supplier<Api> replicas) {
        this.id = id;
        this.token = token;
        this.concurrency = concurrency;
        this.replicas = replicas;
    }

    static SimWorker register(Supplier<Api> replicas, String name, int concurrency, List<Map<String, Object>> blocks) {
        while (true) {
            try {
                Api api = replicas.get();
                Api.Response registered = api.as("test-worker").post("/workers/register",
                        Map.of("name", name, "concurrency", concurrency));
                if (registered.status() != 201) {
                    throw new IllegalStateException(registered.toString());
                }
                UUID id = UUID.fromString(registered.at("/id").asString());
                String token = registered.at("/token").asString();
                Api.Response fbs = api.as(token).post("/function-blocks/register",
                        Map.of("workerId", id, "functionBlocks", blocks));
                if (fbs.status() != 200) {
                    throw new IllegalStateException(fbs.toString());
                }
                return new SimWorker(id, token, concurrency, replicas);
            } catch (RuntimeException e) {
                Replica.sleep(200); // a replica went away mid-call: try another
            }
        }
    }

    SimWorker start(int pollers) {
        for (int i = 0; i < pollers; i++) {
            threads.add(Thread.ofVirtual().name("poller-" + id + "-" + i).start(this::pollLoop));
        }
        threads.add(Thread.ofVirtual().name("heartbeat-" + id).start(this::heartbeatLoop));
        return this;
    }

    /**
     * Polls that wait {@code waitMs} on the server, from a client that gives up after {@code
     * timeout} and says so in Blackboard-Timeout-Ms, as the SDKs do: a worker whose HTTP client
     * times out sooner than its long polls.
     */
    SimWorker impatient(Duration timeout, int waitMs) {
        this.pollTimeout = timeout;
        this.waitMs = waitMs;
        return this;
    }

    /** Only the heartbeat, as an idle worker would run it. */
    SimWorker startHeartbeat() {
        threads.add(Thread.ofVirtual().name("heartbeat-" + id).start(this::heartbeatLoop));
        return this;
    }

    /** Claims jobs and never runs them: what a worker holds at the moment it is killed. */
    int claimWithoutRunning(int limit) {
        Api.Response claimed = api().post("/blackboard/job", Map.of("workerId", id, "limit", limit));
        claimed.body().valueStream().forEach(job -> active.add(UUID.fromString(job.get("id").asString())));
        return claimed.body().size();
    }

    /** kill -9 of the worker process: nothing more is pushed or pinged. */
    void crash() {
        stopped = true;
    }

    void stop() throws InterruptedException {
        stopped = true;
        for (Thread thread : threads) {
            thread.join(10_000);
        }
    }

    private void pollLoop() {
        while (!stopped) {
            try {
                int limit = ThreadLocalRandom.current().nextInt(1, 11);
                Duration timeout = pollTimeout;
                Api poller = timeout == null ? api()
                        : api().within(timeout).with("Blackboard-Timeout-Ms", Long.toString(timeout.toMillis()));
                Api.Response polled;
                try {
                    polled = serverErrors.seen(poller.post("/blackboard/job",
                            Map.of("workerId", id, "limit", limit, "waitMs", waitMs)));
                } catch (IllegalStateException e) {
                    if (e.getCause() instanceof HttpTimeoutException) {
                        timedOut.incrementAndGet();
                    }
                    throw e;
                }
                if (polled.status() != 200) {
                    Replica.sleep(50);
                    continue;
                }
                if (polled.body().size() > limit) {
                    overLimit.incrementAndGet();
                }
                List<JsonNode> jobs = polled.body().valueStream().toList();
                jobs.forEach(job -> active.add(UUID.fromString(job.get("id").asString())));
                maxHeld.accumulateAndGet(active.size(), Math::max);
                if (!stopped) {
                    push(jobs);
                }
            } catch (RuntimeException e) {
                Replica.sleep(100); // the replica died under us: the next call goes elsewhere
            }
        }
    }

    /**
     * A job stops counting as held when its push is sent: the server frees its slot on that
     * push, so holding it until the answer would overlap with the slot's next claim.
     */
    private void push(List<JsonNode> jobs) {
        if (jobs.isEmpty()) {
            return;
        }
        if (jobs.size() > 1 && ThreadLocalRandom.current().nextBoolean()) {
            List<Map<String, Object>> batch = jobs.stream().map(this::result).toList();
            jobs.forEach(job -> active.remove(UUID.fromString(job.get("id").asString())));
            Api.Response answer = untilAnswered("/blackboard/job/results", batch);
            if (answer.status() == 200) {
                answer.body().valueStream().forEach(item -> settle(UUID.fromString(item.get("jobId").asString()),
                        item.get("status").asInt()));
            }
            return;
        }
        for (JsonNode job : jobs) {
            if (stopped) {
                return;
            }
            UUID id = UUID.fromString(job.get("id").asString());
            active.remove(id);
            settle(id, untilAnswered("/blackboard/job/result", result(job)).status());
        }
    }

    /**
     * A push is sent again, to any live replica, until some server answers it: pushes are
     * idempotent, so a transport error never leaves a finished job unreported.
     */
    private Api.Response untilAnswered(String path, Object body) {
        while (true) {
            try {
                Api.Response answer = serverErrors.seen(api().post(path, body));
                if (answer.status() != 503) {
                    return answer;
                }
            } catch (RuntimeException e) {
                if (stopped) {
                    throw e;
                }
            }
            Replica.sleep(100);
        }
    }

    private Map<String, Object> result(JsonNode job) {
        return Map.of("jobId", job.get("id").asString(), "workerId", id, "attempt", job.get("attempt").asInt(),
                "status", "SUCCESS", "result", Map.of("by", id.toString()));
    }

    private void settle(UUID job, int status) {
        if (status == 200) {
            acknowledged.add(job);
        } else if (status == 409) {
            conflicts.incrementAndGet();
        }
    }

    private void heartbeatLoop() {
        while (!stopped) {
            try {
                serverErrors.seen(api().post("/workers/" + id + "/ping", Map.of("activeJobIds", List.copyOf(active))));
            } catch (RuntimeException e) {
                // next beat goes elsewhere
            }
            Replica.sleep(300);
        }
    }

    private Api api() {
        return replicas.get().as(token);
    }
}
