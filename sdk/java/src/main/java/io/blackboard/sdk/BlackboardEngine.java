package io.blackboard.sdk;

import io.blackboard.sdk.internal.Http;
import io.blackboard.sdk.internal.Json;
import io.blackboard.sdk.internal.WorkerRuntime;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * The engine's side of Blackboard: create jobs, read and cancel them, follow the result feed. Calls an engine
 * token ({@code BLACKBOARD_ENGINE_TOKENS}) may make. A 429 or 503 (the server did nothing) is sent again after
 * its {@code Retry-After}, a few times; any other error answer is a {@link BlackboardApiException}, an I/O
 * failure a {@link BlackboardException}. Thread-safe.
 *
 * <pre>{@code
 * try (BlackboardEngine engine = BlackboardEngine.builder()
 *         .baseUrl("http://localhost:8080").token("dev-engine-token").build()) {
 *     String block = engine.functionBlockId("configBackup", "1.0.0");
 *     Job job = engine.createJob(NewJob.execute(block, Map.of("host", "r1")));
 *     ResultFeed feed = engine.followResults("0-0");
 *     Job done = feed.next();
 * }
 * }</pre>
 */
public final class BlackboardEngine implements AutoCloseable {

    private static final int ATTEMPTS_WHEN_BUSY = 4;

    private final HttpClient client;
    private final Http http;
    private final String token;
    private final Duration requestTimeout;

    private BlackboardEngine(Builder builder) {
        this.client = Http.defaultClient(builder.connectTimeout, builder.sslContext);
        this.http = new Http(builder.baseUrl, client, builder.requestTimeout,
                WorkerRuntime.SDK_NAME + "/" + WorkerRuntime.SDK_VERSION);
        this.token = builder.token;
        this.requestTimeout = builder.requestTimeout;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Creates one job (201), or answers the existing one when its idempotency key was used before (200). */
    public Job createJob(NewJob job) {
        return Job.fromJson(Json.object(call("POST", "/blackboard/jobs", job.toJson(), requestTimeout)));
    }

    /** Creates up to 1000 jobs, all or none, in order. */
    public List<Job> createJobs(List<NewJob> jobs) {
        List<Object> body = new ArrayList<>();
        jobs.forEach(job -> body.add(job.toJson()));
        return jobs(call("POST", "/blackboard/jobs", body, requestTimeout));
    }

    public Job getJob(String id) {
        return Job.fromJson(Json.object(call("GET", "/blackboard/jobs/" + encode(id), null, requestTimeout)));
    }

    /** Cancels a PENDING or POLLED job (its worker hears of it in its next ping); again: nothing changes. */
    public Job cancelJob(String id) {
        return Job.fromJson(Json.object(call("POST", "/blackboard/jobs/" + encode(id) + "/cancel", null,
                requestTimeout)));
    }

    /**
     * One page of the result feed after a cursor ({@code "0-0"} is the beginning), waiting up to {@code wait}
     * (at most 30 s) for a first result.
     */
    public ResultPage results(String after, int limit, Duration wait) {
        long waitMs = Math.min(Math.max(0, wait.toMillis()), 30_000);
        String path = "/blackboard/results?after=" + encode(after == null ? "0-0" : after) + "&limit=" + limit
                + "&waitMs=" + waitMs;
        Map<String, Object> page = Json.object(call("GET", path, null, requestTimeout.plusMillis(waitMs)));
        return new ResultPage(jobs(page.get("results")), Json.string(page.get("next")));
    }

    /** Follows the feed from a cursor ({@code "0-0"}: from the beginning), 100 results per page. */
    public ResultFeed followResults(String after) {
        return new ResultFeed(this, after == null ? "0-0" : after, 100);
    }

    /** The catalog: every function block with its ONLINE workers and queue. */
    public List<Map<String, Object>> functionBlocks() {
        List<Map<String, Object>> blocks = new ArrayList<>();
        for (Object item : Json.array(call("GET", "/function-blocks", null, requestTimeout))) {
            blocks.add(Json.object(item));
        }
        return blocks;
    }

    /** The id of a function block by name and version, from the catalog. */
    public String functionBlockId(String name, String version) {
        for (Map<String, Object> block : functionBlocks()) {
            if (name.equals(block.get("name")) && version.equals(block.get("version"))) {
                return Json.string(block.get("id"));
            }
        }
        throw new BlackboardException("no function block " + name + " " + version + " on the server "
                + "(no worker has registered it yet?)");
    }

    @Override
    public void close() {
        try {
            HttpClient.class.getMethod("shutdown").invoke(client);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // Java 17: the client's thread ends once it is unreachable
        }
    }

    private Object call(String method, String path, Object body, Duration timeout) {
        for (int attempt = 1; ; attempt++) {
            Http.Reply reply;
            try {
                reply = http.send(method, path, token, body, timeout);
            } catch (IOException e) {
                throw new BlackboardException(method + " " + path + " failed: " + e, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BlackboardException(method + " " + path + " interrupted", e);
            }
            if (reply.ok()) {
                return reply.json();
            }
            if ((reply.status() == 429 || reply.status() == 503) && attempt < ATTEMPTS_WHEN_BUSY) {
                sleep(reply.retryAfter().orElse(Duration.ofSeconds(1)));
                continue;
            }
            throw new BlackboardApiException(reply.status(), reply.problem(),
                    method + " " + path + " answered " + reply.describe());
        }
    }

    private static List<Job> jobs(Object array) {
        List<Job> jobs = new ArrayList<>();
        for (Object item : Json.array(array)) {
            jobs.add(Job.fromJson(Json.object(item)));
        }
        return jobs;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BlackboardException("interrupted", e);
        }
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** Builds an engine client. Required: {@link #baseUrl} and {@link #token}. */
    public static final class Builder {

        private URI baseUrl;
        private String token;
        private Duration requestTimeout = Duration.ofSeconds(10);
        private Duration connectTimeout = Duration.ofSeconds(5);
        private SSLContext sslContext;

        private Builder() {
        }

        /** {@code BLACKBOARD_URL} and {@code BLACKBOARD_ENGINE_TOKEN}, where set. */
        public Builder fromEnvironment(Map<String, String> env) {
            if (env.get("BLACKBOARD_URL") != null) {
                baseUrl(env.get("BLACKBOARD_URL"));
            }
            if (env.get("BLACKBOARD_ENGINE_TOKEN") != null) {
                token(env.get("BLACKBOARD_ENGINE_TOKEN"));
            }
            return this;
        }

        public Builder baseUrl(String baseUrl) {
            return baseUrl(URI.create(baseUrl));
        }

        public Builder baseUrl(URI baseUrl) {
            this.baseUrl = Objects.requireNonNull(baseUrl, "baseUrl");
            return this;
        }

        /** An engine token, one of the server's {@code BLACKBOARD_ENGINE_TOKENS}. */
        public Builder token(String token) {
            this.token = Objects.requireNonNull(token, "token");
            return this;
        }

        /** Each call's timeout (a feed read's is this plus its wait). Default 10 s. */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
            return this;
        }

        public Builder sslContext(SSLContext sslContext) {
            this.sslContext = sslContext;
            return this;
        }

        public BlackboardEngine build() {
            if (baseUrl == null || token == null) {
                throw new IllegalStateException("an engine client needs a baseUrl and a token");
            }
            return new BlackboardEngine(this);
        }
    }
}
