package io.blackboard.chaos;

import io.blackboard.Api;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipFile;

/** One Blackboard server process: the real jar, its own port, the shared database. */
final class Replica implements AutoCloseable {

    /**
     * Sweepers every half second, so every replica races every other; thresholds loose enough
     * that a busy machine does not flap healthy workers (tests force expiry through SQL).
     */
    static final Map<String, String> FAST = Map.of(
            "WORKER_UNREACHABLE_THRESHOLD_MS", "10000",
            "WORKER_OFFLINE_THRESHOLD_MS", "30000",
            "WORKER_CHECK_INTERVAL", "500",
            "BLACKBOARD_STUCK_JOB_TIMEOUT", "30000",
            "BLACKBOARD_JOB_CHECK_INTERVAL", "500",
            "BLACKBOARD_ORPHAN_GRACE_MS", "10000",
            "BLACKBOARD_POLL_RECHECK_MS", "500");

    private final String name;
    private final ChaosDatabase database;
    private final Map<String, String> env;
    private final List<String> prefix;
    private final int port;
    private Process process;
    private int starts;
    private Duration lastStart = Duration.ZERO;

    Replica(String name, ChaosDatabase database, Map<String, String> env) {
        this(name, database, env, List.of());
    }

    /** {@code prefix}: a command to run the JVM under (for example faketime). */
    Replica(String name, ChaosDatabase database, Map<String, String> env, List<String> prefix) {
        this.name = name;
        this.database = database;
        this.env = env;
        this.prefix = prefix;
        this.port = freePort();
    }

    Replica start() {
        try {
            Path logs = Path.of("target", "chaos-logs");
            Files.createDirectories(logs);
            List<String> command = new ArrayList<>(prefix);
            command.add(java());
            command.addAll(JVM_OPTIONS);
            command.addAll(Launch.prepared().arguments());
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(logs.resolve(name + "-" + (++starts) + ".log").toFile());
            Map<String, String> environment = builder.environment();
            environment.putAll(new HashMap<>(FAST));
            environment.putAll(Map.of("SERVER_PORT", Integer.toString(port),
                    "SPRING_DATASOURCE_URL", database.url(),
                    "SPRING_DATASOURCE_USERNAME", database.user(),
                    "SPRING_DATASOURCE_PASSWORD", database.password(),
                    "SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE", "10",
                    "SPRING_DATASOURCE_HIKARI_MINIMUM_IDLE", "2",
                    "BLACKBOARD_WORKER_TOKENS", "test-worker,test-all",
                    "BLACKBOARD_ENGINE_TOKENS", "test-engine,test-all",
                    "BLACKBOARD_OPERATOR_TOKENS", "test-operator,test-all"));
            environment.putAll(env);
            long begin = System.nanoTime();
            process = builder.start();
            Process started = process;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> destroyTree(started)));
            try {
                awaitReady(Duration.ofSeconds(240));
                lastStart = Duration.ofNanos(System.nanoTime() - begin);
            } catch (RuntimeException e) {
                destroyTree(started); // never leave a half-started server behind
                throw e;
            }
            return this;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** From launching the process to its readiness probe's first 200, for the last start. */
    Duration lastStart() {
        return lastStart;
    }

    /** SIGKILL: no shutdown hook, no goodbye (to the JVM under a wrapper such as faketime, too). */
    void kill9() throws InterruptedException {
        destroyTree(process);
        process.waitFor(30, TimeUnit.SECONDS);
    }

    private static void destroyTree(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    /** SIGTERM, and the exit code once the process has gone. */
    int terminate(Duration within) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(name + " did not exit within " + within + " of SIGTERM");
        }
        return process.exitValue();
    }

    boolean alive() {
        return process != null && process.isAlive() && process.descendants().allMatch(ProcessHandle::isAlive);
    }

    Api api() {
        return new Api(port);
    }

    int port() {
        return port;
    }

    /** HTTP status of the readiness probe, or -1 when nothing answers. */
    int readiness() {
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
            HttpRequest request = HttpRequest.newBuilder(
                    URI.create("http://localhost:" + port + "/actuator/health/readiness"))
                    .timeout(Duration.ofSeconds(5)).build();
            return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + "; see target/chaos-logs");
            }
            if (readiness() == 200) {
                return;
            }
            sleep(200);
        }
        throw new IllegalStateException(name + " not ready within " + timeout);
    }

    @Override
    public void close() throws InterruptedException {
        if (alive()) {
            kill9();
        }
    }

    private static final List<String> JVM_OPTIONS = List.of("-Xmx384m", "-XX:+UseSerialGC");

    private static String java() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    /**
     * The start docs/operations.md documents for a start-up in seconds: the jar extracted, its
     * context's ahead-of-time code, and the JVM's ahead-of-time cache from a training run made
     * once for all the replicas of a test run, with the replicas' JVM options (the cache needs
     * the same). A replica's start-up time is then what a deployment's is.
     */
    record Launch(List<String> arguments) {

        private static Launch prepared;

        static synchronized Launch prepared() {
            if (prepared == null) {
                prepared = prepare();
            }
            return prepared;
        }

        private static Launch prepare() {
            Path jar = jar();
            Path app = Path.of("target", "aot-app");
            Path cache = app.resolve("blackboard.aot");
            try {
                deleteTree(app);
                run(List.of(java(), "-Djarmode=tools", "-jar", jar.toString(), "extract", "--destination",
                        app.toString()), Map.of());
                Path extracted = app.resolve(jar.getFileName());
                // a jar built by Maven on a JVM older than 21 has no ahead-of-time code (server/pom.xml)
                List<String> aot = hasAotCode(jar) ? List.of("-Dspring.aot.enabled=true") : List.of();
                List<String> training = new ArrayList<>(List.of(java()));
                training.addAll(JVM_OPTIONS);
                training.add("-XX:AOTCacheOutput=" + cache);
                training.addAll(aot);
                training.addAll(List.of("-Dspring.context.exit=onRefresh", "-jar", extracted.toString()));
                run(training, Map.of("SPRING_DATASOURCE_URL", "jdbc:postgresql://127.0.0.1:1/none",
                        "SERVER_PORT", "0"));
                if (!Files.exists(cache)) {
                    throw new IllegalStateException("The training run wrote no cache; see target/chaos-logs");
                }
                List<String> arguments = new ArrayList<>(List.of("-XX:AOTCache=" + cache));
                arguments.addAll(aot);
                arguments.addAll(List.of("-jar", extracted.toString()));
                return new Launch(List.copyOf(arguments));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        private static boolean hasAotCode(Path jar) throws IOException {
            String initializer = "BOOT-INF/classes/io/blackboard/BlackboardApplication__ApplicationContextInitializer.class";
            try (ZipFile zip = new ZipFile(jar.toFile())) {
                return zip.getEntry(initializer) != null;
            }
        }

        private static void run(List<String> command, Map<String, String> env) throws IOException {
            Path logs = Path.of("target", "chaos-logs");
            Files.createDirectories(logs);
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logs.resolve("aot-training.log").toFile()));
            builder.environment().putAll(env);
            Process process = builder.start();
            try {
                if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
                    process.destroyForcibly();
                    throw new IllegalStateException(command + " failed; see target/chaos-logs/aot-training.log");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        private static void deleteTree(Path root) throws IOException {
            if (Files.exists(root)) {
                try (var paths = Files.walk(root)) {
                    for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(path);
                    }
                }
            }
        }
    }

    static Path jar() {
        File[] jars = new File("target").listFiles((dir, file) -> file.startsWith("blackboard-")
                && file.endsWith(".jar") && !file.endsWith("-sources.jar"));
        if (jars == null || jars.length == 0) {
            throw new IllegalStateException("No server jar in target/: run through ./mvnw verify");
        }
        return jars[0].toPath();
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
