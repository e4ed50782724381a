package io.blackboard.sdk;

import java.time.Duration;
import java.util.Map;

/** A worker process for {@link SignalTest}: its handler sleeps {@code args[1]} ms; exit 0 when stopped by a signal. */
public final class SignalMain {

    private SignalMain() {
    }

    public static void main(String[] args) {
        long sleepMs = Long.parseLong(args[1]);
        BlackboardWorker worker = BlackboardWorker.builder()
                .baseUrl(args[0]).token("dev-worker-token").name("signalled")
                .pollWait(Duration.ofMillis(200)).backoff(Duration.ofMillis(10), Duration.ofMillis(50), 2)
                .functionBlock(FunctionBlockSpec.of("scenario", "1.0.0"), ctx -> {
                    System.out.println("started " + ctx.jobId());
                    System.out.flush();
                    ctx.awaitCancellation(Duration.ofMillis(sleepMs));
                    return Outcome.success(Map.of());
                })
                .build();
        StopReason reason = worker.run();
        System.out.println("stopped " + reason);
        System.exit(reason == StopReason.SIGNAL ? 0 : 1);
    }
}
