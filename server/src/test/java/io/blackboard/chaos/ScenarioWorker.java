package io.blackboard.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A worker SDK's scenario worker (sdk/java-examples' ScenarioWorker, sdk/python's
 * tests/scenario_worker.py) as a process of its own, configured by environment variables only,
 * and the lines it logs (started, cancelled, finished) as the shared scenarios read them.
 */
final class ScenarioWorker implements AutoCloseable {

    /** The SDKs under test, and how each starts its scenario worker. */
    enum Sdk {
        JAVA, PYTHON;

        List<String> command() {
            Path root = repositoryRoot();
            return switch (this) {
                case JAVA -> List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx128m",
                        "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                        "io.blackboard.examples.ScenarioWorker");
                case PYTHON -> List.of(python(), root.resolve("sdk/python/tests/scenario_worker.py").toString());
            };
        }

        Map<String, String> environment() {
            return this == PYTHON ? Map.of("PYTHONPATH", repositoryRoot().resolve("sdk/python/src").toString(),
                    "PYTHONUNBUFFERED", "1") : Map.of();
        }
    }

    private final String name;
    private final Process process;
    private final Path log;

    private ScenarioWorker(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** Starts one against {@code url} (a server, or a proxy in front of it). */
    static ScenarioWorker start(Sdk sdk, String name, String url, Map<String, String> env) {
        try {
            Path logs = Files.createDirectories(Path.of("target", "sdk-scenarios"));
            Path events = logs.resolve(name + ".events");
            Files.deleteIfExists(events);
            Files.createFile(events);
            ProcessBuilder builder = new ProcessBuilder(sdk.command()).redirectErrorStream(true)
                    .redirectOutput(logs.resolve(name + ".log").toFile());
            Map<String, String> environment = builder.environment();
            environment.putAll(sdk.environment());
            environment.putAll(Map.of("BLACKBOARD_URL", url, "BLACKBOARD_WORKER_TOKEN", "test-worker",
                    "BLACKBOARD_WORKER_NAME", name, "SCENARIO_LOG", events.toAbsolutePath().toString(),
                    "BLACKBOARD_POLL_WAIT_MS", "2000", "BLACKBOARD_DRAIN_TIMEOUT_MS", "10000"));
            environment.putAll(new HashMap<>(env));
            Process process = builder.start();
            Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
            return new ScenarioWorker(name, process, events);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    String name() {
        return name;
    }

    /** The lines logged so far, each split into its words. */
    List<List<String>> events() {
        try {
            List<List<String>> events = new ArrayList<>();
            for (String line : Files.readAllLines(log)) {
                if (!line.isBlank()) {
                    events.add(List.of(line.trim().split(" ")));
                }
            }
            return events;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    boolean logged(String event, String jobId) {
        return events().stream().anyMatch(e -> e.get(0).equals(event) && e.get(1).equals(jobId));
    }

    /** SIGTERM, as a container runtime stops a process. */
    void terminate() {
        process.destroy();
    }

    /** The exit code, once it exits within {@code within}. */
    int awaitExit(Duration within) throws InterruptedException {
        if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " did not exit within " + within + "; see target/sdk-scenarios/" + name
                    + ".log");
        }
        return process.exitValue();
    }

    boolean alive() {
        return process.isAlive();
    }

    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    private static Path repositoryRoot() {
        return Path.of("..").toAbsolutePath().normalize();
    }

    /** Debian's python3, the one .ci/run makes sure of; else whatever python3 is on the PATH. */
    private static String python() {
        return Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
    }

}
