package io.blackboard.sdk.testing;

import io.blackboard.sdk.FunctionBlock;
import io.blackboard.sdk.FunctionBlockSpec;
import io.blackboard.sdk.JobType;
import io.blackboard.sdk.Outcome;
import io.blackboard.sdk.internal.Json;
import io.blackboard.sdk.internal.Outcomes;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@link FunctionBlock} as a worker would, without a server: the method for the job's type, a thrown
 * exception turned into the same FAILURE, the push body a worker would send, and nothing pushed when the job
 * was cancelled.
 *
 * <pre>{@code
 * HarnessResult r = JobHarness.of(new ConfigBackup()).run(JobType.EXECUTE, Map.of("host", "r1"));
 * assertTrue(r.isSuccess());
 *
 * TestJobContext ctx = TestJobContext.builder().params(Map.of("host", "slow")).cancelAfter(Duration.ofMillis(50)).build();
 * assertFalse(JobHarness.of(new ConfigBackup()).run(ctx).pushed());
 * }</pre>
 */
public final class JobHarness {

    private final FunctionBlock block;
    private final FunctionBlockSpec spec;

    private JobHarness(FunctionBlock block, FunctionBlockSpec spec) {
        this.block = block;
        this.spec = spec;
    }

    public static JobHarness of(FunctionBlock block) {
        return new JobHarness(Objects.requireNonNull(block, "block"), null);
    }

    /** With the block's spec, whose name and version the contexts then carry. */
    public static JobHarness of(FunctionBlockSpec spec, FunctionBlock block) {
        return new JobHarness(Objects.requireNonNull(block, "block"), Objects.requireNonNull(spec, "spec"));
    }

    /** Runs a job of this type with these params (attempt 1) on the calling thread. */
    public HarnessResult run(JobType type, Map<String, ?> params) {
        return run(context().type(type).params(params).build());
    }

    /** A context builder preset with this harness's block name and version. */
    public TestJobContext.Builder context() {
        TestJobContext.Builder builder = TestJobContext.builder();
        return spec == null ? builder : builder.functionBlock(spec.name(), spec.version());
    }

    /** Runs the context's job on the calling thread, cancelling it after its {@code cancelAfter}, if any. */
    public HarnessResult run(TestJobContext ctx) {
        ScheduledExecutorService timer = null;
        ScheduledFuture<?> cancel = null;
        if (ctx.cancelAfter() != null) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "job-harness-cancel");
                t.setDaemon(true);
                return t;
            });
            cancel = timer.schedule(ctx::cancel, ctx.cancelAfter().toNanos(), TimeUnit.NANOSECONDS);
        }
        try {
            return execute(ctx);
        } finally {
            if (timer != null) {
                cancel.cancel(false);
                timer.shutdownNow();
            }
        }
    }

    /** Runs the job on another thread, so the test can {@link TestJobContext#cancel()} it meanwhile. */
    public CompletableFuture<HarnessResult> runAsync(TestJobContext ctx, ExecutorService executor) {
        return CompletableFuture.supplyAsync(() -> run(ctx), executor);
    }

    private HarnessResult execute(TestJobContext ctx) {
        Outcome outcome;
        Throwable thrown = null;
        try {
            outcome = block.dispatch(ctx);
            if (outcome == null) {
                outcome = Outcome.success();
            }
        } catch (Throwable t) {
            thrown = t;
            outcome = Outcomes.fromException(t);
        }
        if (ctx.isCancelled()) {
            return new HarnessResult(outcome, thrown, true, null);
        }
        // exactly what a worker would send (an outcome that is not JSON becomes a FAILURE there and here)
        return new HarnessResult(outcome, thrown, false, Json.parseObject(Outcomes.pushJson(ctx, outcome)));
    }
}
