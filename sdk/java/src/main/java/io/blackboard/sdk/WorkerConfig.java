package io.blackboard.sdk;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import javax.net.ssl.SSLContext;

/**
 * A worker's configuration, immutable, built by {@link BlackboardWorker#builder()} (which documents each knob
 * and its default).
 *
 * @param baseUrl the server, such as {@code http://localhost:8080}
 * @param registrationToken the enrolment token ({@code BLACKBOARD_WORKER_TOKENS} on the server)
 * @param name the worker's name, shown to operators
 * @param hostname sent at registration
 * @param ip sent at registration when set
 * @param pid sent at registration
 * @param version your application's version, sent at registration when set
 * @param labels what job selectors are matched against
 * @param concurrency jobs held at once, at most
 * @param functionBlocks the blocks and their handlers, in declaration order
 * @param drainTimeout how long a stopping worker waits for held jobs
 * @param pollWait a poll's {@code waitMs} (capped by the server's {@code maxPollWaitMs})
 * @param requestTimeout the timeout of every call but the poll (whose is {@code pollWait} + this)
 * @param connectTimeout the HTTP client's connect timeout
 * @param backoffInitial the first error delay's ceiling
 * @param backoffMax the largest error delay
 * @param backoffMultiplier how the ceiling grows per consecutive error
 * @param onExpired what to do when the server forgot the worker
 * @param handleSignals whether {@link BlackboardWorker#run()} handles SIGTERM/SIGINT and installs a shutdown hook
 * @param sslContext TLS settings (private CAs), null for the JDK's defaults
 * @param handlerExecutor an executor of yours for the handlers (you shut it down), null for the SDK's own
 */
public record WorkerConfig(URI baseUrl, String registrationToken, String name, String hostname, String ip,
        long pid, String version, Map<String, String> labels, int concurrency, List<Block> functionBlocks,
        Duration drainTimeout, Duration pollWait, Duration requestTimeout, Duration connectTimeout,
        Duration backoffInitial, Duration backoffMax, double backoffMultiplier, OnExpired onExpired,
        boolean handleSignals, SSLContext sslContext, ExecutorService handlerExecutor) {

    public WorkerConfig {
        labels = Map.copyOf(labels);
        functionBlocks = List.copyOf(functionBlocks);
    }

    /** One function block and the code that runs its jobs. */
    public record Block(FunctionBlockSpec spec, FunctionBlock handler) {
    }

    @Override
    public String toString() {
        // never the token
        return "WorkerConfig[baseUrl=" + baseUrl + ", name=" + name + ", hostname=" + hostname + ", labels="
                + labels + ", concurrency=" + concurrency + ", functionBlocks="
                + functionBlocks.stream().map(b -> b.spec().key()).toList() + ", drainTimeout=" + drainTimeout
                + ", pollWait=" + pollWait + ", onExpired=" + onExpired + "]";
    }
}
