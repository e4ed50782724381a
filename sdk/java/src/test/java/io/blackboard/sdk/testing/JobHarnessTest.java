package io.blackboard.sdk.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.sdk.FunctionBlock;
import io.blackboard.sdk.FunctionBlockSpec;
import io.blackboard.sdk.JobContext;
import io.blackboard.sdk.JobFailedException;
import io.blackboard.sdk.JobType;
import io.blackboard.sdk.Outcome;
import io.blackboard.sdk.internal.Json;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class JobHarnessTest {

    /** Sleeps sleepMs in 10 ms steps, watching its cancel flag. */
    static final class Sleeper implements FunctionBlock {
        @Override
        public Outcome execute(JobContext ctx) throws Exception {
            long sleepMs = ((Number) ctx.params().getOrDefault("sleepMs", 0)).longValue();
            if (ctx.awaitCancellation(Duration.ofMillis(sleepMs))) {
                return Outcome.success(Map.of("cancelled", true));
            }
            if (ctx.params().containsKey("fail")) {
                throw new IllegalArgumentException((String) ctx.params().get("fail"));
            }
            return Outcome.success(Map.of("host", ctx.params().get("host"), "attempt", ctx.attempt()));
        }

        @Override
        public Outcome acquire(JobContext ctx) {
            return Outcome.acquired(List.of(Map.of("resource", ctx.params().get("host"))));
        }
    }

    @Test
    void runs_a_handler_and_shows_the_push() {
        HarnessResult r = JobHarness.of(new Sleeper()).run(JobType.EXECUTE, Map.of("host", "r1"));

        assertThat(r.isSuccess()).isTrue();
        assertThat(r.result()).isEqualTo(Map.of("host", "r1", "attempt", 1));
        assertThat(r.pushBody()).containsEntry("status", "SUCCESS").containsEntry("attempt", 1L)
                .containsEntry("result", Map.of("host", "r1", "attempt", 1L));
    }

    @Test
    void dispatches_by_type_with_defaults_for_what_is_not_overridden() {
        JobHarness harness = JobHarness.of(FunctionBlockSpec.of("backup", "2.0.0"), new Sleeper());

        assertThat(harness.run(JobType.ACQUIRE, Map.of("host", "r1")).outcome().acquires())
                .isEqualTo(List.of(Map.of("resource", "r1")));
        HarnessResult rollback = harness.run(JobType.ROLLBACK, Map.of());
        assertThat(rollback.isSuccess()).isFalse();
        assertThat(rollback.error()).containsEntry("type", "ROLLBACK_NOT_IMPLEMENTED");
        assertThat((String) rollback.error().get("message")).contains("backup 2.0.0");
    }

    @Test
    void a_thrown_exception_becomes_the_failure_a_worker_pushes() {
        HarnessResult r = JobHarness.of(new Sleeper()).run(JobType.EXECUTE, Map.of("fail", "no route to r1"));

        assertThat(r.thrown()).isInstanceOf(IllegalArgumentException.class);
        assertThat(r.pushBody()).containsEntry("status", "FAILURE");
        assertThat(r.error()).containsEntry("type", "java.lang.IllegalArgumentException")
                .containsEntry("message", "no route to r1").containsKey("stack");
    }

    @Test
    void a_job_cancelled_while_it_runs_pushes_nothing() {
        TestJobContext ctx = TestJobContext.builder().params(Map.of("sleepMs", 5_000))
                .cancelAfter(Duration.ofMillis(50)).attempt(3).build();

        long start = System.nanoTime();
        HarnessResult r = JobHarness.of(new Sleeper()).run(ctx);

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        assertThat(r.cancelled()).isTrue();
        assertThat(r.pushed()).isFalse();
    }

    @Test
    void a_test_can_cancel_a_job_it_runs_in_the_background() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            TestJobContext ctx = TestJobContext.of(Map.of("sleepMs", 5_000));
            var running = JobHarness.of(new Sleeper()).runAsync(ctx, executor);
            ctx.cancel();
            assertThat(running.get(2, TimeUnit.SECONDS).pushed()).isFalse();
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void progress_reports_are_recorded_as_a_server_would_have_recorded_them() {
        AtomicLong now = new AtomicLong();
        TestJobContext ctx = TestJobContext.builder().clock(now::get).build();
        FunctionBlock copying = c -> {
            for (int percent = 0; percent < 100; percent += 10) {
                c.progress(percent, percent + " files");
            }
            now.addAndGet(TimeUnit.SECONDS.toNanos(2));
            c.progress(95);
            c.progress(100, "done");
            return Outcome.success();
        };

        assertThat(JobHarness.of(copying).run(ctx).isSuccess()).isTrue();
        assertThat(ctx.progressReports()).containsExactly(new ProgressReport(0, "0 files"),
                new ProgressReport(95, null), new ProgressReport(100, "done"));
    }

    @Test
    void a_failure_with_a_code_is_pushed_as_a_worker_would() {
        HarnessResult r = JobHarness.of(ctx -> {
            throw JobFailedException.nonRetryable("AUTH_FAILED", "bad credentials");
        }).run(JobType.EXECUTE, Map.of());

        assertThat(r.error()).containsEntry("code", "AUTH_FAILED").containsEntry("retryable", false)
                .containsEntry("message", "bad credentials");
        assertThat(Json.object(r.pushBody().get("error"))).containsEntry("code", "AUTH_FAILED");
    }

    @Test
    void a_result_that_is_not_json_is_pushed_as_a_failure_as_a_worker_would() {
        HarnessResult r = JobHarness.of(ctx -> Outcome.success(new Object())).run(JobType.EXECUTE, Map.of());

        assertThat(r.pushBody()).containsEntry("status", "FAILURE");
        assertThat((String) ((Map<?, ?>) r.pushBody().get("error")).get("message")).contains("not JSON");
    }
}
