import io.blackboard.sdk.BlackboardWorker;
import io.blackboard.sdk.FunctionBlockSpec;
import io.blackboard.sdk.Outcome;
import io.blackboard.sdk.WorkerState;
import io.blackboard.sdk.WorkerStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark's Java SDK workers (phase {@code sdk} of bench/Bench.java): {@code --workers} workers of the Java
 * SDK in this one JVM, each serving {@code bench.sdk 1.0.0} with a no-op handler (the result {@code {}}) at
 * concurrency 1, so each poll asks for 1 job. Every other knob is the SDK's default: a 25 s poll wait (jobs are
 * pending, so polls return at once), the server's ping interval, a 20 s drain.
 *
 * <pre>
 * java -cp sdk/java/target/blackboard-sdk-0.1.0-SNAPSHOT.jar bench/SdkJavaWorkers.java \
 *     --url http://127.0.0.1:PORT --token T [--workers 8] [--name bench-sdk-java] [--max-seconds 600]
 * </pre>
 *
 * Prints {@code ready I WORKER_ID} on stdout once worker I is registered and RUNNING. On SIGTERM every worker stops
 * gracefully (the SDK's shutdown sequence: parked poll aborted, drain, release ping, unregister), all at once, and
 * each prints {@code stats I WorkerStats[...]}. Several workers share the JVM, so none handles signals itself
 * ({@code handleSignals(false)}, as the SDK's README says): a shutdown hook closes them. Bounded: it stops by
 * itself after {@code --max-seconds}, or when the process that started it is gone.
 */
public class SdkJavaWorkers {

    public static void main(String[] args) throws Exception {
        String url = null;
        String token = null;
        String name = "bench-sdk-java";
        int n = 8;
        long maxSeconds = 600;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--url" -> url = args[i + 1];
                case "--token" -> token = args[i + 1];
                case "--workers" -> n = Integer.parseInt(args[i + 1]);
                case "--name" -> name = args[i + 1];
                case "--max-seconds" -> maxSeconds = Long.parseLong(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (url == null || token == null) {
            throw new IllegalArgumentException("--url and --token are required");
        }
        long lifetime = maxSeconds;
        List<BlackboardWorker> workers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            workers.add(BlackboardWorker.builder()
                    .baseUrl(url).token(token).name(name + "-" + i)
                    .concurrency(1)
                    .handleSignals(false)
                    .functionBlock(FunctionBlockSpec.of("bench.sdk", "1.0.0"), ctx -> Outcome.success(Map.of()))
                    .build());
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            long t0 = System.nanoTime();
            workers.forEach(BlackboardWorker::requestStop); // all at once: each waits out the orphan grace
            for (int i = 0; i < workers.size(); i++) {
                BlackboardWorker w = workers.get(i);
                try {
                    if (!w.awaitTermination(Duration.ofSeconds(90))) {
                        System.out.println("not-stopped " + i + " " + w.state());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                WorkerStats s = w.stats();
                System.out.println("stats " + i + " " + w.stopReason() + " " + s);
            }
            System.out.printf("stopped in %.1f s%n", (System.nanoTime() - t0) / 1e9);
            System.out.flush();
        }, "bench-sdk-stop"));
        // bounded: a driver that died (kill -9) or a forgotten run does not leave workers polling
        Thread watchdog = new Thread(() -> {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(lifetime);
            var parent = ProcessHandle.current().parent();
            while (System.nanoTime() < end && parent.map(ProcessHandle::isAlive).orElse(true)) {
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                }
            }
            System.out.println("watchdog: stopping (time is up, or the driver is gone)");
            System.exit(4);
        }, "bench-sdk-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        workers.forEach(BlackboardWorker::start);
        boolean[] ready = new boolean[n];
        int left = n;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (left > 0 && System.nanoTime() < deadline) {
            for (int i = 0; i < n; i++) {
                BlackboardWorker w = workers.get(i);
                if (!ready[i] && w.state() == WorkerState.RUNNING) {
                    ready[i] = true;
                    left--;
                    System.out.println("ready " + i + " " + w.workerId());
                } else if (w.state() == WorkerState.STOPPED) {
                    System.out.println("failed " + i + " " + w.stopReason() + " " + w.failure());
                    System.exit(2);
                }
            }
            System.out.flush();
            Thread.sleep(10);
        }
        if (left > 0) {
            System.out.println("failed: " + left + " workers not RUNNING after 60 s");
            System.exit(2);
        }
        // the workers' own threads keep the JVM up until SIGTERM (the hook) or the watchdog
    }
}
