package io.blackboard.sdk;

import io.blackboard.sdk.internal.SignalHandling;
import io.blackboard.sdk.internal.WorkerRuntime;
import java.lang.System.Logger;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import javax.net.ssl.SSLContext;

/**
 * A Blackboard worker: registers itself and its function blocks, keeps its lease with one ping loop, claims
 * jobs for its free slots with one long-poll loop, runs them on a bounded executor and pushes their results (on
 * a server of API 1.1, a busy worker's push also claims its next job: one round trip per job).
 *
 * <pre>{@code
 * try (BlackboardWorker worker = BlackboardWorker.builder()
 *         .baseUrl("http://localhost:8080").token("dev-worker-token").name("cisco-worker")
 *         .functionBlock(FunctionBlockSpec.of("ping", "1.0.0").pure(true),
 *                 ctx -> Outcome.success(Map.of("host", ctx.params().get("host"), "up", true)))
 *         .build()) {
 *     StopReason why = worker.run(); // until SIGTERM/SIGINT, TERMINATE or close()
 * }
 * }</pre>
 *
 * {@link #run()} blocks and handles SIGTERM/SIGINT (a second signal skips the drain); {@link #start()} returns at
 * once and {@link #close()} stops gracefully. Nothing runs before {@code start()}; everything stops by
 * {@code close()}. Thread-safe.
 */
public final class BlackboardWorker implements AutoCloseable {

    private final WorkerConfig config;
    private final WorkerRuntime runtime;
    private final Logger log = System.getLogger("io.blackboard.sdk.worker");

    private BlackboardWorker(WorkerConfig config) {
        this.config = config;
        this.runtime = new WorkerRuntime(config);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A worker for a configuration built earlier. */
    public static BlackboardWorker create(WorkerConfig config) {
        return new BlackboardWorker(Objects.requireNonNull(config, "config"));
    }

    /** Starts registering, pinging and polling in the background; returns at once. */
    public void start() {
        runtime.start();
    }

    /**
     * Starts (unless started) and blocks until the worker stopped; answers why. With {@code handleSignals} (the
     * default) SIGTERM and SIGINT stop it gracefully while this runs, a second signal skips the drain, and a
     * JVM shutdown hook stops it if the JVM exits otherwise.
     *
     * @throws RegistrationRejectedException when the server refused the worker (bad token, bad description)
     * @throws BlackboardException when the worker failed otherwise
     */
    public StopReason run() {
        SignalHandling signals = config.handleSignals()
                ? SignalHandling.install(log, () -> runtime.requestStop(StopReason.SIGNAL),
                        () -> runtime.forceStop(StopReason.SIGNAL), this::awaitStoppedForHook)
                : null;
        boolean interrupted = false;
        try {
            if (runtime.state() == WorkerState.NEW) {
                runtime.start();
            }
            while (true) {
                try {
                    runtime.awaitStopped();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                    runtime.requestStop(StopReason.CLOSED);
                }
            }
        } finally {
            if (signals != null) {
                signals.close();
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        RuntimeException failure = runtime.failure();
        if (failure != null) {
            throw failure;
        }
        return runtime.stopReason();
    }

    private void awaitStoppedForHook() {
        try {
            // the drain, the orphan grace and the calls around them; then the JVM goes on exiting regardless
            runtime.awaitStopped(config.drainTimeout().plus(Duration.ofSeconds(40)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Asks for a graceful stop and returns at once. */
    public void requestStop() {
        runtime.requestStop(StopReason.CLOSED);
    }

    /**
     * Stops gracefully and waits: no more polls, the parked poll aborted, held jobs drained (up to the drain
     * timeout) while the ping goes on, lost claims released by a last ping after the server's orphan grace,
     * unregistered. Called from one of this worker's handlers it only asks for the stop (waiting would wait
     * for itself).
     */
    @Override
    public void close() {
        runtime.requestStop(StopReason.CLOSED);
        if (!runtime.isHandlerThread()) {
            awaitQuietly();
        }
    }

    /** Stops without draining: held jobs are given up (cancel flags set, nothing pushed), then unregisters. */
    public void closeNow() {
        runtime.forceStop(StopReason.CLOSED);
        if (!runtime.isHandlerThread()) {
            awaitQuietly();
        }
    }

    private void awaitQuietly() {
        boolean interrupted = false;
        while (true) {
            try {
                runtime.awaitStopped();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until the worker stopped; answers false if the timeout passed first. */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        return runtime.awaitStopped(timeout);
    }

    public WorkerState state() {
        return runtime.state();
    }

    /** Why it stopped; null while it has not. */
    public StopReason stopReason() {
        return runtime.stopReason();
    }

    /** What made it stop with {@link StopReason#FAILED}, else null. */
    public RuntimeException failure() {
        return runtime.failure();
    }

    /** The id of the current registration (it changes when the worker re-registers); null before the first. */
    public String workerId() {
        return runtime.workerId();
    }

    /** Jobs held now: running, or pushing. */
    public int heldJobs() {
        return runtime.heldJobs();
    }

    public WorkerStats stats() {
        return runtime.stats();
    }

    public WorkerConfig config() {
        return config;
    }

    @Override
    public String toString() {
        return "BlackboardWorker[" + config.name() + ", " + state() + ", " + workerId() + "]";
    }

    /**
     * Builds a worker. Required: {@link #baseUrl}, {@link #token}, {@link #name} and at least one
     * {@link #functionBlock}. Every other knob has a default, listed on its method.
     */
    public static final class Builder {

        private URI baseUrl;
        private String token;
        private String name;
        private String hostname;
        private boolean hostnameSet;
        private String ip;
        private long pid = ProcessHandle.current().pid();
        private String version;
        private final Map<String, String> labels = new LinkedHashMap<>();
        private int concurrency = 1;
        private final List<WorkerConfig.Block> blocks = new ArrayList<>();
        private Duration drainTimeout = Duration.ofSeconds(20);
        private Duration pollWait = Duration.ofSeconds(25);
        private Duration requestTimeout = Duration.ofSeconds(10);
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration backoffInitial = Duration.ofMillis(500);
        private Duration backoffMax = Duration.ofSeconds(30);
        private double backoffMultiplier = 2.0;
        private OnExpired onExpired = OnExpired.REREGISTER;
        private boolean handleSignals = true;
        private SSLContext sslContext;
        private ExecutorService handlerExecutor;

        private Builder() {
        }

        /**
         * Reads the standard environment variables: {@code BLACKBOARD_URL}, {@code BLACKBOARD_WORKER_TOKEN},
         * {@code BLACKBOARD_WORKER_NAME}, {@code BLACKBOARD_CONCURRENCY}, {@code BLACKBOARD_LABELS}
         * ({@code k=v,k=v}), {@code BLACKBOARD_DRAIN_TIMEOUT_MS}, {@code BLACKBOARD_POLL_WAIT_MS}; a variable that is
         * not set leaves the builder's value as it is.
         */
        public Builder fromEnvironment() {
            return fromEnvironment(System.getenv());
        }

        /** {@link #fromEnvironment()} over a map of your own (for tests). */
        public Builder fromEnvironment(Map<String, String> env) {
            String url = env.get("BLACKBOARD_URL");
            if (url != null && !url.isBlank()) {
                baseUrl(url);
            }
            String tok = env.get("BLACKBOARD_WORKER_TOKEN");
            if (tok != null && !tok.isBlank()) {
                token(tok);
            }
            String n = env.get("BLACKBOARD_WORKER_NAME");
            if (n != null && !n.isBlank()) {
                name(n);
            }
            String c = env.get("BLACKBOARD_CONCURRENCY");
            if (c != null && !c.isBlank()) {
                concurrency(Integer.parseInt(c.trim()));
            }
            String l = env.get("BLACKBOARD_LABELS");
            if (l != null && !l.isBlank()) {
                for (String pair : l.split(",")) {
                    int eq = pair.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("BLACKBOARD_LABELS wants k=v,k=v; got " + l);
                    }
                    label(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
                }
            }
            String d = env.get("BLACKBOARD_DRAIN_TIMEOUT_MS");
            if (d != null && !d.isBlank()) {
                drainTimeout(Duration.ofMillis(Long.parseLong(d.trim())));
            }
            String w = env.get("BLACKBOARD_POLL_WAIT_MS");
            if (w != null && !w.isBlank()) {
                pollWait(Duration.ofMillis(Long.parseLong(w.trim())));
            }
            return this;
        }

        /** The server, such as {@code http://localhost:8080}. Required. */
        public Builder baseUrl(String baseUrl) {
            return baseUrl(URI.create(baseUrl));
        }

        public Builder baseUrl(URI baseUrl) {
            this.baseUrl = Objects.requireNonNull(baseUrl, "baseUrl");
            return this;
        }

        /** The enrolment (registration) token, one of the server's {@code BLACKBOARD_WORKER_TOKENS}. Required. */
        public Builder token(String token) {
            this.token = Objects.requireNonNull(token, "token");
            return this;
        }

        /** The worker's name, shown to operators. Required. */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Sent at registration. Default: this host's name. */
        public Builder hostname(String hostname) {
            this.hostname = hostname;
            this.hostnameSet = true;
            return this;
        }

        /** Sent at registration. Default: none. */
        public Builder ip(String ip) {
            this.ip = ip;
            return this;
        }

        /** Your application's version, sent at registration. Default: none. */
        public Builder version(String version) {
            this.version = version;
            return this;
        }

        /** Adds labels, what job selectors are matched against. Default: none. */
        public Builder labels(Map<String, String> labels) {
            labels.forEach(this::label);
            return this;
        }

        public Builder label(String key, String value) {
            labels.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** Jobs held at once, at most: polls ask for the free slots only. Default 1. */
        public Builder concurrency(int concurrency) {
            if (concurrency < 1 || concurrency > 10_000) {
                throw new IllegalArgumentException("concurrency must be 1 to 10000, not " + concurrency);
            }
            this.concurrency = concurrency;
            return this;
        }

        /** Declares a function block and the code that runs its jobs. At least one is required. */
        public Builder functionBlock(FunctionBlockSpec spec, FunctionBlock handler) {
            blocks.add(new WorkerConfig.Block(Objects.requireNonNull(spec, "spec"),
                    Objects.requireNonNull(handler, "handler")));
            return this;
        }

        /** How long a stopping worker waits for its held jobs before giving them up. Default 20 s. */
        public Builder drainTimeout(Duration drainTimeout) {
            this.drainTimeout = nonNegative(drainTimeout, "drainTimeout");
            return this;
        }

        /** How long a poll waits on the server for work, 100 ms to 30 s. Default 25 s. */
        public Builder pollWait(Duration pollWait) {
            if (pollWait.toMillis() < 100 || pollWait.toMillis() > 30_000) {
                throw new IllegalArgumentException("pollWait must be 100 ms to 30 s, not " + pollWait);
            }
            this.pollWait = pollWait;
            return this;
        }

        /** The timeout of each call but the poll (whose timeout is pollWait plus this). Default 10 s. */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = positive(requestTimeout, "requestTimeout");
            return this;
        }

        /** Default 5 s. */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = positive(connectTimeout, "connectTimeout");
            return this;
        }

        /**
         * Backoff after errors (never after success): the n-th failure in a row waits a random time up to
         * {@code min(max, initial * multiplier^(n-1))}; a {@code Retry-After} from the server wins. Default
         * 500 ms, 30 s, 2.
         */
        public Builder backoff(Duration initial, Duration max, double multiplier) {
            if (positive(initial, "initial").compareTo(positive(max, "max")) > 0 || multiplier < 1) {
                throw new IllegalArgumentException("backoff needs initial <= max and multiplier >= 1");
            }
            this.backoffInitial = initial;
            this.backoffMax = max;
            this.backoffMultiplier = multiplier;
            return this;
        }

        /** What to do when the server forgot the worker. Default {@link OnExpired#REREGISTER}. */
        public Builder onExpired(OnExpired onExpired) {
            this.onExpired = Objects.requireNonNull(onExpired, "onExpired");
            return this;
        }

        /** Whether {@link #run()} handles SIGTERM/SIGINT and installs a shutdown hook. Default true. */
        public Builder handleSignals(boolean handleSignals) {
            this.handleSignals = handleSignals;
            return this;
        }

        /** TLS settings, for a private CA. Default: the JDK's. */
        public Builder sslContext(SSLContext sslContext) {
            this.sslContext = sslContext;
            return this;
        }

        /**
         * An executor of yours for the handlers (the worker does not shut it down). It must be able to run
         * {@code concurrency} tasks at once. Default: a virtual thread per job on Java 21+, else a pool of
         * {@code concurrency} threads.
         */
        public Builder handlerExecutor(ExecutorService executor) {
            this.handlerExecutor = executor;
            return this;
        }

        /** The immutable configuration, checked. */
        public WorkerConfig buildConfig() {
            require(baseUrl != null, "baseUrl (BLACKBOARD_URL)");
            require(token != null && !token.isBlank(), "token (BLACKBOARD_WORKER_TOKEN)");
            require(name != null && !name.isBlank(), "name (BLACKBOARD_WORKER_NAME)");
            require(!blocks.isEmpty(), "at least one functionBlock");
            String scheme = baseUrl.getScheme();
            if (!"http".equals(scheme) && !"https".equals(scheme)) {
                throw new IllegalArgumentException("baseUrl must be http:// or https://, not " + baseUrl);
            }
            Set<String> keys = new HashSet<>();
            for (WorkerConfig.Block block : blocks) {
                if (!keys.add(block.spec().key())) {
                    throw new IllegalArgumentException("function block " + block.spec().key() + " declared twice");
                }
            }
            return new WorkerConfig(baseUrl, token, name, hostnameSet ? hostname : localHostname(), ip, pid, version, labels, concurrency, blocks,
                    drainTimeout, pollWait, requestTimeout, connectTimeout, backoffInitial, backoffMax,
                    backoffMultiplier, onExpired, handleSignals, sslContext, handlerExecutor);
        }

        public BlackboardWorker build() {
            return new BlackboardWorker(buildConfig());
        }

        private static void require(boolean ok, String what) {
            if (!ok) {
                throw new IllegalStateException("a Blackboard worker needs " + what);
            }
        }

        private static Duration positive(Duration d, String what) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive");
            }
            return d;
        }

        private static Duration nonNegative(Duration d, String what) {
            if (d == null || d.isNegative()) {
                throw new IllegalArgumentException(what + " must not be negative");
            }
            return d;
        }

        private static String localHostname() {
            String env = System.getenv("HOSTNAME");
            if (env != null && !env.isBlank()) {
                return env;
            }
            try {
                return InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException | SecurityException e) {
                return null;
            }
        }
    }
}
