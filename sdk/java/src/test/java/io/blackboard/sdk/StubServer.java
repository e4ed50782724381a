package io.blackboard.sdk;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.blackboard.sdk.internal.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * A stand-in for the Blackboard server, on {@code com.sun.net.httpserver}: every request recorded, every route
 * answered by a default that behaves like the server (fast timings: 50 ms pings, 100 ms orphan grace) unless a
 * test scripts it with {@link #on} or {@link #once}. Jobs handed out by polls and by /next come from
 * {@link #offer}; /next is only called once {@link #apiVersion} says "1.1". Progress reports are recorded at most
 * once per job every {@link #progressGapMs}, as the server records them (and nothing checks the claim).
 */
final class StubServer implements AutoCloseable {

    /** A request as it arrived. */
    record Request(String method, String path, String query, String token, String body, long atNanos) {
        Map<String, Object> json() {
            return body == null || body.isBlank() ? Map.of() : Json.parseObject(body);
        }

        @SuppressWarnings("unchecked")
        List<String> activeJobIds() {
            return (List<String>) (List<?>) Json.array(json().get("activeJobIds"));
        }
    }

    /** An answer; {@code dropConnection} closes the exchange without any answer (an I/O error for the client). */
    record Response(int status, Object body, Map<String, String> headers, boolean dropConnection) {
        static Response json(int status, Object body) {
            return new Response(status, body, Map.of(), false);
        }

        static Response problem(int status, String type) {
            return new Response(status, Map.of("type", type, "title", "stub", "status", status, "detail",
                    "stubbed " + type), Map.of(), false);
        }

        static Response drop() {
            return new Response(0, null, Map.of(), true);
        }

        Response withHeader(String name, String value) {
            Map<String, String> h = new LinkedHashMap<>(headers);
            h.put(name, value);
            return new Response(status, body, h, dropConnection);
        }
    }

    static final String REGISTER = "POST /workers/register";
    static final String BLOCKS = "POST /function-blocks/register";
    static final String PING = "POST /workers/*/ping";
    static final String UNREGISTER = "POST /workers/*/unregister";
    static final String POLL = "POST /blackboard/job";
    static final String PUSH = "POST /blackboard/job/result";
    static final String NEXT = "POST /blackboard/job/next";
    static final String CLAIMS = "GET /workers/*/jobs";
    static final String PROGRESS = "POST /blackboard/job/progress";

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final Map<String, Function<Request, Response>> routes = new ConcurrentHashMap<>();
    private final Map<String, Queue<Function<Request, Response>>> scripted = new ConcurrentHashMap<>();
    private final LinkedBlockingQueue<Map<String, Object>> jobs = new LinkedBlockingQueue<>();
    private final AtomicInteger registrations = new AtomicInteger();
    volatile String directive = "RUN";
    volatile long pingIntervalMs = 50;
    volatile long orphanGraceMs = 100;
    /** How long an empty poll parks (at most its waitMs). */
    volatile long pollHoldMs = 50;
    /** The registration answer's apiVersion; null leaves it out, as servers before "1" did. */
    volatile String apiVersion;
    final List<String> cancelJobIds = new CopyOnWriteArrayList<>();
    /** Jobs handed out by the default poll and by the default /next. */
    final AtomicInteger claimedByPolls = new AtomicInteger();
    final AtomicInteger claimedByNext = new AtomicInteger();
    volatile long progressGapMs = 2_000;
    private final Map<Object, Long> progressRecordedAt = new ConcurrentHashMap<>();
    /** Worker tokens of deleted workers: every call made with one is answered 404. */
    final List<String> forgotten = new CopyOnWriteArrayList<>();

    StubServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        defaults();
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Deletes a worker, as an operator's DELETE would: its token gets 404 from now on. */
    void forget(String workerToken) {
        forgotten.add(workerToken);
    }

    /** Replaces a route's default answer ({@code "POST /workers/*}/ping"}). */
    StubServer on(String route, Function<Request, Response> answer) {
        routes.put(route, answer);
        return this;
    }

    /** Answers the route's next request so, once, before its default. */
    StubServer once(String route, Function<Request, Response> answer) {
        scripted.computeIfAbsent(route, r -> new ConcurrentLinkedQueue<>()).add(answer);
        return this;
    }

    StubServer once(String route, Response answer) {
        return once(route, r -> answer);
    }

    void offer(Map<String, Object> job) {
        jobs.add(job);
    }

    static Map<String, Object> job(String id, JobType type, int attempt, Map<String, ?> payload) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("id", id);
        job.put("functionBlockId", "fb-1");
        job.put("type", type.name());
        job.put("status", "POLLED");
        job.put("payload", payload);
        job.put("attempt", attempt);
        job.put("maxAttempts", 1);
        job.put("priority", 0);
        return job;
    }

    List<Request> requests() {
        return new ArrayList<>(requests);
    }

    List<Request> requests(String route) {
        return requests.stream().filter(r -> matches(route, r)).toList();
    }

    int count(String route) {
        return requests(route).size();
    }

    /** Waits (up to 5 s) for a condition the worker's threads make true. */
    static void await(String what, BooleanSupplier condition) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out waiting for " + what);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private void defaults() {
        on(REGISTER, r -> {
            int n = registrations.incrementAndGet();
            Map<String, Object> worker = new LinkedHashMap<>();
            worker.put("id", "w" + n);
            worker.put("name", r.json().get("name"));
            worker.put("state", "ONLINE");
            worker.put("directive", "RUN");
            worker.put("token", "bbw_" + n);
            worker.put("pingIntervalMs", pingIntervalMs);
            worker.put("orphanGraceMs", orphanGraceMs);
            worker.put("maxPollWaitMs", 30_000);
            if (apiVersion != null) {
                worker.put("apiVersion", apiVersion);
            }
            return Response.json(201, worker);
        });
        on(BLOCKS, r -> {
            List<Object> answer = new ArrayList<>();
            int i = 1;
            for (Object block : Json.array(r.json().get("functionBlocks"))) {
                Map<String, Object> b = new LinkedHashMap<>(Json.object(block));
                b.put("id", "fb-" + i++);
                answer.add(b);
            }
            return Response.json(200, answer);
        });
        on(PING, r -> {
            Map<String, Object> reply = new LinkedHashMap<>();
            reply.put("state", "ONLINE");
            reply.put("directive", directive);
            reply.put("serverTime", "2026-11-22T02:45:45.3Z");
            reply.put("pingIntervalMs", pingIntervalMs);
            List<String> cancel = new ArrayList<>();
            for (String id : r.activeJobIds()) {
                if (cancelJobIds.contains(id)) {
                    cancel.add(id);
                }
            }
            reply.put("cancelJobIds", cancel);
            return Response.json(200, reply);
        });
        on(POLL, r -> {
            int limit = ((Number) r.json().getOrDefault("limit", 1)).intValue();
            long waitMs = ((Number) r.json().getOrDefault("waitMs", 0)).longValue();
            List<Object> claimed = new ArrayList<>();
            try {
                Map<String, Object> first = jobs.poll(Math.min(waitMs, pollHoldMs), TimeUnit.MILLISECONDS);
                if (first != null) {
                    claimed.add(first);
                    List<Map<String, Object>> more = new ArrayList<>();
                    jobs.drainTo(more, limit - 1);
                    claimed.addAll(more);
                    claimedByPolls.addAndGet(claimed.size());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Response.json(200, claimed);
        });
        on(NEXT, r -> {
            // every push lands; then up to limit jobs, without waiting
            List<Object> results = new ArrayList<>();
            for (Object push : Json.array(r.json().get("results"))) {
                Object id = Json.object(push).get("jobId");
                results.add(Map.of("jobId", id, "status", 200, "job", Map.of("id", id, "status", "PUSHED")));
            }
            List<Map<String, Object>> claimed = new ArrayList<>();
            jobs.drainTo(claimed, ((Number) r.json().getOrDefault("limit", 1)).intValue());
            claimedByNext.addAndGet(claimed.size());
            return Response.json(200, Map.of("results", results, "jobs", claimed));
        });
        on(PUSH, r -> Response.json(200, Map.of("id", r.json().get("jobId"), "status", "PUSHED")));
        on(UNREGISTER, r -> Response.json(200, Map.of("state", "OFFLINE")));
        on(PROGRESS, r -> {
            Object jobId = r.json().get("jobId");
            long now = System.nanoTime();
            Long last = progressRecordedAt.get(jobId);
            boolean recorded = last == null || now - last >= TimeUnit.MILLISECONDS.toNanos(progressGapMs);
            if (recorded) {
                progressRecordedAt.put(jobId, now);
            }
            Map<String, Object> answer = new LinkedHashMap<>();
            answer.put("jobId", jobId);
            answer.put("recorded", recorded);
            answer.put("deadline", recorded ? "2026-11-22T02:50:00Z" : null);
            return Response.json(200, answer);
        });
        on(CLAIMS, r -> Response.json(200, List.of()));
    }

    private void handle(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String auth = exchange.getRequestHeaders().getFirst("Authorization");
        Request request = new Request(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                exchange.getRequestURI().getRawQuery(), auth == null ? null : auth.replaceFirst("^Bearer ", ""), body, System.nanoTime());
        requests.add(request);
        Response response;
        try {
            response = answer(request);
        } catch (RuntimeException e) {
            response = Response.json(500, Map.of("detail", e.toString()));
        }
        if (response.dropConnection()) {
            exchange.close();
            return;
        }
        byte[] bytes = response.body() == null ? new byte[0]
                : Json.write(response.body()).getBytes(StandardCharsets.UTF_8);
        response.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
        exchange.getResponseHeaders().add("Content-Type",
                response.status() >= 400 ? "application/problem+json" : "application/json");
        try {
            exchange.sendResponseHeaders(response.status(), bytes.length == 0 ? -1 : bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        } catch (IOException clientGone) {
            // the client aborted (a cancelled poll)
        } finally {
            exchange.close();
        }
    }

    private Response answer(Request request) {
        if (request.token() != null && forgotten.contains(request.token())) {
            return Response.problem(404, "/problems/worker-not-found");
        }
        for (Map.Entry<String, Queue<Function<Request, Response>>> entry : scripted.entrySet()) {
            if (matches(entry.getKey(), request)) {
                Function<Request, Response> next = entry.getValue().poll();
                if (next != null) {
                    return next.apply(request);
                }
            }
        }
        for (Map.Entry<String, Function<Request, Response>> entry : routes.entrySet()) {
            if (matches(entry.getKey(), request)) {
                return entry.getValue().apply(request);
            }
        }
        return Response.problem(404, "/problems/not-found");
    }

    static boolean matches(String route, Request request) {
        int space = route.indexOf(' ');
        if (!route.substring(0, space).equals(request.method())) {
            return false;
        }
        String[] want = route.substring(space + 1).split("/");
        String[] got = request.path().split("/");
        if (want.length != got.length) {
            return false;
        }
        for (int i = 0; i < want.length; i++) {
            if (!want[i].equals("*") && !want[i].equals(got[i])) {
                return false;
            }
        }
        return true;
    }
}
