package io.blackboard.sdk;

import static io.blackboard.sdk.StubServer.BLOCKS;
import static io.blackboard.sdk.StubServer.NEXT;
import static io.blackboard.sdk.StubServer.PROGRESS;
import static io.blackboard.sdk.StubServer.PUSH;
import static io.blackboard.sdk.StubServer.REGISTER;
import static io.blackboard.sdk.StubServer.await;
import static io.blackboard.sdk.StubServer.job;
import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.sdk.StubServer.Request;
import io.blackboard.sdk.StubServer.Response;
import io.blackboard.sdk.internal.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a handler gained with the server's progress reports, retry policies and dead letters, against the stub:
 * {@link JobContext#progress}, failures with an error code, FAILURE pushes answered with the job waiting for a
 * retry or parked, the block's retry policy and timeout, and jobs with members this SDK does not know.
 */
@Timeout(20)
class ProgressAndRetryTest {

    private static final FunctionBlockSpec SPEC = FunctionBlockSpec.of("scenario", "1.0.0").idempotent(true);

    private StubServer stub;
    private BlackboardWorker worker;

    @BeforeEach
    void startStub() throws Exception {
        stub = new StubServer();
    }

    @AfterEach
    void stop() {
        if (worker != null) {
            worker.closeNow();
        }
        stub.close();
    }

    private BlackboardWorker start(FunctionBlockSpec spec, FunctionBlock block) {
        worker = BlackboardWorker.builder()
                .baseUrl(stub.url()).token("dev-worker-token").name("test-worker")
                .functionBlock(spec, block)
                .pollWait(Duration.ofMillis(200))
                .backoff(Duration.ofMillis(10), Duration.ofMillis(50), 2)
                .requestTimeout(Duration.ofSeconds(2))
                .handleSignals(false)
                .build();
        worker.start();
        await("RUNNING", () -> worker.state() == WorkerState.RUNNING);
        return worker;
    }

    private BlackboardWorker start(FunctionBlock block) {
        return start(SPEC, block);
    }

    // ---- progress -----------------------------------------------------------------------------------------

    @Test
    void reports_go_to_the_held_claim_and_a_tight_loop_sends_one_report_and_the_final_100() {
        List<Boolean> answers = new CopyOnWriteArrayList<>();
        start(ctx -> {
            answers.add(ctx.progress(10, "connecting"));
            for (int i = 0; i < 50; i++) {
                answers.add(ctx.progress(10 + i)); // within 2 s of the recorded one: skipped, no request
            }
            answers.add(ctx.progress(100, "done")); // always sent; the server records it 2 s after the last only
            return Outcome.success(Map.of());
        });
        stub.offer(job("j1", JobType.EXECUTE, 3, Map.of()));

        await("pushed", () -> worker.stats().jobsSucceeded() == 1);
        List<Request> reports = stub.requests(PROGRESS);
        assertThat(reports).extracting(Request::json).containsExactly(
                Map.of("jobId", "j1", "workerId", "w1", "attempt", 3L, "percent", 10L, "message", "connecting"),
                Map.of("jobId", "j1", "workerId", "w1", "attempt", 3L, "percent", 100L, "message", "done"));
        assertThat(reports).extracting(Request::token).containsOnly("bbw_1");
        List<Boolean> expected = new ArrayList<>(List.of(true));
        expected.addAll(java.util.Collections.nCopies(51, false));
        assertThat(answers).as("recorded: false is no error").isEqualTo(expected);
    }

    @Test
    void a_report_answered_409_cancels_the_job_as_a_ping_would_and_nothing_is_pushed() {
        stub.on(PROGRESS, r -> Response.json(409, Map.of("type", "/problems/job-not-held", "jobStatus", "PUSHED",
                "outcome", "CANCELLED")));
        List<Object> seen = new CopyOnWriteArrayList<>();
        start(ctx -> {
            seen.add(ctx.progress(50, "halfway"));
            seen.add(ctx.isCancelled());
            seen.add(ctx.progress(60)); // a cancelled job reports nothing more
            return Outcome.success(Map.of("too", "late"));
        });
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));

        await("ended cancelled", () -> worker.stats().jobsCancelled() == 1);
        assertThat(seen).containsExactly(false, true, false);
        assertThat(stub.count(PROGRESS)).isEqualTo(1);
        assertThat(stub.count(PUSH)).isZero();
        assertThat(worker.heldJobs()).isZero();
    }

    @Test
    void a_job_the_server_does_not_know_is_cancelled_and_a_worker_it_forgot_registers_again() {
        stub.pingIntervalMs = 60_000; // only the report can tell
        stub.once(PROGRESS, Response.problem(404, "/problems/job-not-found"));
        stub.once(PROGRESS, Response.problem(404, "/problems/worker-not-found"));
        List<Boolean> cancelled = new CopyOnWriteArrayList<>();
        start(ctx -> {
            ctx.progress(1);
            cancelled.add(ctx.isCancelled());
            return Outcome.success(Map.of());
        });
        stub.offer(job("gone", JobType.EXECUTE, 1, Map.of()));
        await("first ended", () -> worker.stats().jobsCancelled() == 1);
        assertThat(worker.stats().reregistrations()).isZero();

        stub.offer(job("mine", JobType.EXECUTE, 1, Map.of()));

        await("registered again", () -> "w2".equals(worker.workerId()));
        assertThat(cancelled).containsExactly(true, true);
        assertThat(stub.count(PUSH)).isZero();
        assertThat(stub.count(BLOCKS)).isEqualTo(2);
    }

    @Test
    void a_server_without_progress_gets_no_more_reports_and_the_job_goes_on() {
        stub.on(PROGRESS, r -> Response.problem(404, "/problems/not-found")); // a replica that predates the path
        List<Boolean> answers = new CopyOnWriteArrayList<>();
        start(ctx -> {
            answers.add(ctx.progress(5));
            answers.add(ctx.progress(6));
            answers.add(ctx.isCancelled());
            return Outcome.success(Map.of());
        });
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));

        await("pushed", () -> worker.stats().jobsSucceeded() == 1);
        assertThat(answers).containsExactly(false, false, false);
        assertThat(stub.count(PROGRESS)).isEqualTo(1);
        assertThat(worker.stats().reregistrations()).isZero();
    }

    @Test
    void a_busy_or_unreachable_server_records_nothing_and_cancels_nothing() {
        stub.once(PROGRESS, Response.problem(503, "/problems/overloaded").withHeader("Retry-After", "1"));
        stub.once(PROGRESS, Response.drop());
        stub.once(PROGRESS, Response.drop()); // the client's one silent resend of a dropped request
        List<Boolean> answers = new CopyOnWriteArrayList<>();
        start(ctx -> {
            answers.add(ctx.progress(1));
            answers.add(ctx.progress(2));
            answers.add(ctx.progress(3));
            answers.add(ctx.isCancelled());
            return Outcome.success(Map.of());
        });
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));

        await("pushed", () -> worker.stats().jobsSucceeded() == 1);
        assertThat(answers).containsExactly(false, false, true, false);
    }

    // ---- failures for the retry policy --------------------------------------------------------------------

    @Test
    void a_failure_carries_its_code_and_retryable_and_a_plain_exception_stays_as_it_was() {
        start(ctx -> switch ((String) ctx.params().get("how")) {
            case "auth" -> throw JobFailedException.nonRetryable("AUTH_FAILED", "the device rejected us");
            case "busy" -> throw new JobFailedException("DEVICE_BUSY", "r1 is busy");
            case "returned" -> Outcome.failure("Unreachable", "no route").withErrorCode("NO_ROUTE")
                    .withRetryable(false);
            default -> throw new IllegalStateException("device said no");
        });
        for (String how : List.of("auth", "busy", "returned", "plain")) {
            stub.offer(job(how, JobType.EXECUTE, 1, Map.of("how", how)));
        }

        await("four pushes", () -> stub.count(PUSH) == 4);
        Map<String, Map<String, Object>> errors = new LinkedHashMap<>();
        for (Request push : stub.requests(PUSH)) {
            errors.put((String) push.json().get("jobId"), Json.object(push.json().get("error")));
        }
        assertThat(errors.get("auth")).containsEntry("type", JobFailedException.class.getName())
                .containsEntry("message", "the device rejected us").containsEntry("code", "AUTH_FAILED")
                .containsEntry("retryable", false).containsKey("stack");
        assertThat(errors.get("busy")).containsEntry("code", "DEVICE_BUSY").doesNotContainKey("retryable");
        assertThat(errors.get("returned")).isEqualTo(Map.of("type", "Unreachable", "message", "no route",
                "code", "NO_ROUTE", "retryable", false));
        assertThat(errors.get("plain").keySet()).containsExactlyInAnyOrder("type", "message", "stack");
    }

    @Test
    void a_failure_answered_with_the_job_waiting_for_its_retry_or_parked_is_done() {
        stub.apiVersion = "1.1";
        stub.once(NEXT, itemAnswered("j1", Map.of("id", "j1", "status", "PENDING", "scheduled", true,
                "runAt", "2026-11-22T03:00:05Z", "attempt", 1)));
        stub.once(NEXT, itemAnswered("j2", Map.of("id", "j2", "status", "PARKED", "attempt", 1,
                "errors", List.of(Map.of("attempt", 1, "error", Map.of("code", "BUSY"))))));
        start(ctx -> {
            throw new JobFailedException("BUSY", "busy");
        });
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));
        stub.offer(job("j2", JobType.EXECUTE, 1, Map.of()));
        stub.offer(job("j3", JobType.EXECUTE, 1, Map.of())); // the slot is free again after each

        await("three failures", () -> worker.stats().jobsFailed() == 3);
        assertThat(stub.requests(NEXT)).extracting(r -> item(r).get("jobId")).containsExactly("j1", "j2", "j3");
        assertThat(worker.stats().pushRetries()).isZero();
        assertThat(worker.stats().pushConflicts()).isZero();
        await("slot freed", () -> worker.heldJobs() == 0);
    }

    @Test
    void a_single_push_answered_with_the_job_waiting_for_its_retry_is_done() {
        stub.once(PUSH, Response.json(200, Map.of("id", "j1", "status", "PENDING", "scheduled", true)));
        start(ctx -> Outcome.failure("Busy", "busy").withErrorCode("BUSY"));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));

        await("failed", () -> worker.stats().jobsFailed() == 1);
        StubServer.sleep(Duration.ofMillis(100));
        assertThat(stub.count(PUSH)).isEqualTo(1);
    }

    @Test
    void a_block_declares_its_jobs_default_retry_policy_and_execution_timeout() {
        start(SPEC.retryPolicy(RetryPolicy.defaults().maxAttempts(4).onExhausted(RetryPolicy.OnExhausted.PARK))
                .executionTimeout(Duration.ofMinutes(15)), ctx -> Outcome.success());

        Map<String, Object> block = Json.object(Json.array(stub.requests(BLOCKS).get(0).json().get("functionBlocks"))
                .get(0));
        assertThat(block).containsEntry("retryPolicy", Map.of("maxAttempts", 4L, "onExhausted", "PARK"))
                .containsEntry("executionTimeoutMs", 900_000L);
        assertThat(SPEC.toJson()).as("a block without them sends neither")
                .doesNotContainKeys("retryPolicy", "executionTimeoutMs");
    }

    // ---- a newer server's jobs ----------------------------------------------------------------------------

    @Test
    void a_claimed_job_with_every_new_member_runs_as_any() {
        List<Job> seen = new CopyOnWriteArrayList<>();
        start(ctx -> {
            seen.add(ctx.job());
            return Outcome.success(Map.of("policy", ctx.job().retryPolicy().get("onExhausted")));
        });
        Map<String, Object> job = job("j1", JobType.EXECUTE, 1, Map.of("host", "r1"));
        job.putAll(JobTest.NEW_MEMBERS);
        stub.offer(job);

        await("pushed", () -> worker.stats().jobsSucceeded() == 1);
        assertThat(Json.object(stub.requests(PUSH).get(0).json().get("result"))).containsEntry("policy", "PARK");
        assertThat(seen.get(0).executionTimeoutMs()).isEqualTo(600_000L);
    }

    @Test
    void a_job_of_a_type_this_sdk_does_not_know_is_pushed_as_a_failure() {
        start(ctx -> Outcome.success());
        Map<String, Object> job = job("j1", JobType.EXECUTE, 1, Map.of());
        job.put("type", "COMPENSATE");
        stub.offer(job);

        await("pushed", () -> stub.count(PUSH) == 1);
        Map<String, Object> push = stub.requests(PUSH).get(0).json();
        assertThat(push).containsEntry("status", "FAILURE");
        assertThat(Json.object(push.get("error"))).containsEntry("type", "NO_HANDLER");
        assertThat((String) Json.object(push.get("error")).get("message")).contains("COMPENSATE");
        assertThat(stub.count(REGISTER)).isEqualTo(1);
    }

    /** A /next answered 200 whose one item is 200 with this job. */
    private static Response itemAnswered(String jobId, Map<String, Object> job) {
        return Response.json(200, Map.of("results", List.of(Map.of("jobId", jobId, "status", 200, "job", job)),
                "jobs", List.of()));
    }

    private static Map<String, Object> item(Request next) {
        return Json.object(Json.array(next.json().get("results")).get(0));
    }
}
