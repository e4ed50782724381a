package io.blackboard.examples;

import io.blackboard.sdk.BlackboardException;
import io.blackboard.sdk.BlackboardWorker;
import io.blackboard.sdk.FunctionBlock;
import io.blackboard.sdk.FunctionBlockSpec;
import io.blackboard.sdk.JobContext;
import io.blackboard.sdk.Outcome;
import io.blackboard.sdk.RegistrationRejectedException;
import io.blackboard.sdk.StopReason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The scenario worker of the shared end-to-end tests: one function block, {@code scenario 1.0.0} (idempotent,
 * result schema {@code {"type": "object"}}), whose handlers do what the job's payload says:
 * {@code {"sleepMs": int, "fail": string, "result": object, "badResult": bool}}. It logs {@code started <jobId>
 * <TYPE> <attempt>}, {@code cancelled <jobId>} and {@code finished <jobId>} lines to {@code SCENARIO_LOG}, each
 * flushed at once.
 *
 * <p>Configured by environment variables only: {@code BLACKBOARD_URL} (default http://localhost:8080),
 * {@code BLACKBOARD_WORKER_TOKEN} (dev-worker-token), {@code BLACKBOARD_WORKER_NAME} (java-scenario-worker),
 * {@code BLACKBOARD_CONCURRENCY} (1), {@code BLACKBOARD_DRAIN_TIMEOUT_MS} (20000), {@code BLACKBOARD_POLL_WAIT_MS},
 * {@code SCENARIO_LOG}. Runs until SIGTERM/SIGINT or a TERMINATE directive and exits 0 after a graceful drain;
 * 2 when the server refuses the registration, 1 on any other failure.
 */
public final class ScenarioWorker {

    private ScenarioWorker() {
    }

    public static void main(String[] args) {
        Logs.oneLinePerRecord();
        Map<String, String> env = System.getenv();
        EventLog events = new EventLog(env.get("SCENARIO_LOG"));
        BlackboardWorker worker = BlackboardWorker.builder()
                .baseUrl("http://localhost:8080")
                .token("dev-worker-token")
                .name("java-scenario-worker")
                .concurrency(1)
                .drainTimeout(Duration.ofSeconds(20))
                .fromEnvironment(env)
                .functionBlock(FunctionBlockSpec.of("scenario", "1.0.0").idempotent(true)
                        .resultSchema("{\"type\": \"object\"}")
                        .description("The shared end-to-end tests' scenario block"), new Scenario(events))
                .build();
        int code;
        try {
            StopReason reason = worker.run();
            code = reason == StopReason.EXPIRED ? 3 : 0;
        } catch (RegistrationRejectedException e) {
            System.err.println(e.getMessage());
            code = 2;
        } catch (BlackboardException e) {
            e.printStackTrace();
            code = 1;
        }
        System.exit(code);
    }

    /** The handlers: all three job types, driven by the payload. */
    static final class Scenario implements FunctionBlock {

        private final EventLog events;

        Scenario(EventLog events) {
            this.events = events;
        }

        @Override
        public Outcome execute(JobContext ctx) throws Exception {
            return act(ctx, () -> {
                if (Boolean.TRUE.equals(ctx.params().get("badResult"))) {
                    return Outcome.success("not an object");
                }
                Object echo = ctx.params().get("result");
                return Outcome.success(Map.of("echo", echo == null ? Map.of() : echo, "jobId", ctx.jobId(),
                        "attempt", ctx.attempt()));
            });
        }

        @Override
        public Outcome acquire(JobContext ctx) throws Exception {
            return act(ctx, () -> Outcome.acquired(List.of(Map.of("resource", "scenario"))));
        }

        @Override
        public Outcome rollback(JobContext ctx) throws Exception {
            return act(ctx, () -> Outcome.success(Map.of("rolledBack", true)));
        }

        private Outcome act(JobContext ctx, Supplier<Outcome> onSuccess) throws InterruptedException {
            events.append("started " + ctx.jobId() + " " + ctx.type() + " " + ctx.attempt());
            try {
                Object sleep = ctx.params().get("sleepMs");
                long left = sleep instanceof Number n ? n.longValue() : 0;
                while (left > 0 && !ctx.isCancelled()) {
                    long step = Math.min(left, 50);
                    ctx.awaitCancellation(Duration.ofMillis(step));
                    left -= step;
                }
                if (ctx.isCancelled()) {
                    events.append("cancelled " + ctx.jobId());
                    return Outcome.success(); // nothing is pushed for a cancelled job, whatever is returned
                }
                Object fail = ctx.params().get("fail");
                if (fail != null) {
                    throw new ScenarioFailure(fail.toString());
                }
                return onSuccess.get();
            } finally {
                events.append("finished " + ctx.jobId());
            }
        }
    }

    /** The error a {@code "fail"} payload asks for. */
    static final class ScenarioFailure extends RuntimeException {
        ScenarioFailure(String message) {
            super(message);
        }
    }

    /** SCENARIO_LOG: one line per event, appended and flushed at once (the tests read it while we run). */
    static final class EventLog {

        private final Path path;

        EventLog(String path) {
            this.path = path == null || path.isBlank() ? null : Path.of(path);
        }

        synchronized void append(String line) {
            if (path == null) {
                System.out.println(line);
                return;
            }
            try {
                Files.write(path, (line + "\n").getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND, StandardOpenOption.WRITE);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
