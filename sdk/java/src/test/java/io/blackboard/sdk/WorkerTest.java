package io.blackboard.sdk;

import static io.blackboard.sdk.StubServer.BLOCKS;
import static io.blackboard.sdk.StubServer.CLAIMS;
import static io.blackboard.sdk.StubServer.NEXT;
import static io.blackboard.sdk.StubServer.PING;
import static io.blackboard.sdk.StubServer.POLL;
import static io.blackboard.sdk.StubServer.PUSH;
import static io.blackboard.sdk.StubServer.REGISTER;
import static io.blackboard.sdk.StubServer.UNREGISTER;
import static io.blackboard.sdk.StubServer.await;
import static io.blackboard.sdk.StubServer.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blackboard.sdk.StubServer.Request;
import io.blackboard.sdk.StubServer.Response;
import io.blackboard.sdk.internal.Json;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The worker against a stub server: the status-code matrix, directives, leases, cancels and shutdown. */
@Timeout(20)
class WorkerTest {

    private static final FunctionBlockSpec SPEC = FunctionBlockSpec.of("scenario", "1.0.0").idempotent(true)
            .paramsSchema("{\"type\": \"object\"}").resultSchema("{\"type\": \"object\"}");

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

    private BlackboardWorker.Builder builder(FunctionBlock block) {
        return BlackboardWorker.builder()
                .baseUrl(stub.url())
                .token("dev-worker-token")
                .name("test-worker")
                .label("site", "a")
                .functionBlock(SPEC, block)
                .pollWait(Duration.ofMillis(200))
                .backoff(Duration.ofMillis(10), Duration.ofMillis(50), 2)
                .requestTimeout(Duration.ofSeconds(2))
                .drainTimeout(Duration.ofSeconds(5))
                .handleSignals(false);
    }

    private BlackboardWorker start(BlackboardWorker.Builder builder) {
        worker = builder.build();
        worker.start();
        await("RUNNING", () -> worker.state() == WorkerState.RUNNING);
        return worker;
    }

    private static FunctionBlock echo() {
        return ctx -> Outcome.success(Map.of("echo", ctx.params(), "attempt", ctx.attempt()));
    }

    // ---- registration -------------------------------------------------------------------------------------

    @Test
    void registers_the_worker_then_its_function_blocks_with_the_new_token() {
        start(builder(echo()).concurrency(3));

        Request register = stub.requests(REGISTER).get(0);
        assertThat(register.token()).isEqualTo("dev-worker-token");
        assertThat(register.json()).containsEntry("name", "test-worker").containsEntry("concurrency", 3L)
                .containsEntry("sdkName", "blackboard-java").containsEntry("sdkVersion", "0.1.0")
                .containsEntry("labels", Map.of("site", "a")).containsKey("pid");
        Request blocks = stub.requests(BLOCKS).get(0);
        assertThat(blocks.token()).isEqualTo("bbw_1");
        assertThat(blocks.json()).containsEntry("workerId", "w1");
        Map<String, Object> block = Json.object(Json.array(blocks.json().get("functionBlocks")).get(0));
        assertThat(block).containsEntry("name", "scenario").containsEntry("version", "1.0.0")
                .containsEntry("idempotent", true).containsEntry("pure", false)
                .containsEntry("resultDataJsonSchema", Map.of("type", "object"));
        assertThat(worker.workerId()).isEqualTo("w1");
    }

    @Test
    void registration_refused_with_401_fails_fast_with_a_clear_exception() {
        stub.on(REGISTER, r -> Response.problem(401, "/problems/unauthorized"));
        worker = builder(echo()).build();

        long start = System.nanoTime();
        assertThatThrownBy(worker::run).isInstanceOf(RegistrationRejectedException.class)
                .hasMessageContaining("BLACKBOARD_WORKER_TOKEN")
                .satisfies(e -> assertThat(((RegistrationRejectedException) e).status()).isEqualTo(401));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        assertThat(stub.count(REGISTER)).isEqualTo(1);
        assertThat(worker.state()).isEqualTo(WorkerState.STOPPED);
        assertThat(worker.stopReason()).isEqualTo(StopReason.FAILED);
    }

    @Test
    void registration_refused_with_403_fails_fast() {
        stub.on(REGISTER, r -> Response.problem(403, "/problems/forbidden"));
        worker = builder(echo()).build();

        assertThatThrownBy(worker::run).isInstanceOf(RegistrationRejectedException.class)
                .hasMessageContaining("not a registration token");
        assertThat(stub.count(REGISTER)).isEqualTo(1);
    }

    @Test
    void registration_answered_5xx_or_unreachable_is_retried_with_backoff() {
        stub.once(REGISTER, Response.problem(503, "/problems/database-unavailable"));
        stub.once(REGISTER, Response.drop());
        stub.once(REGISTER, Response.problem(500, "/problems/internal"));

        start(builder(echo()));

        assertThat(stub.count(REGISTER)).isGreaterThanOrEqualTo(4);
        assertThat(worker.workerId()).isEqualTo("w1");
    }

    @Test
    void a_server_without_sdk_fields_is_registered_with_again_without_them() {
        stub.once(REGISTER, Response.json(400, Map.of("type", "/problems/unknown-field", "field", "sdkName")));

        start(builder(echo()));

        List<Request> registers = stub.requests(REGISTER);
        assertThat(registers).hasSize(2);
        assertThat(registers.get(1).json()).doesNotContainKey("sdkName").doesNotContainKey("sdkVersion");
    }

    @Test
    void a_function_block_conflict_is_fatal() {
        stub.on(BLOCKS, r -> Response.problem(409, "/problems/function-block-conflict"));
        worker = builder(echo()).build();

        assertThatThrownBy(worker::run).isInstanceOf(RegistrationRejectedException.class)
                .hasMessageContaining("publish a new version");
    }

    // ---- the lease ----------------------------------------------------------------------------------------

    @Test
    void pings_list_every_held_job_and_adopt_the_servers_interval() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        stub.pingIntervalMs = 30;
        start(builder(ctx -> {
            release.await();
            return Outcome.success(Map.of());
        }));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));

        await("a ping listing j1", () -> stub.requests(PING).stream().anyMatch(r -> r.activeJobIds().contains("j1")));
        int before = stub.count(PING);
        StubServer.sleep(Duration.ofMillis(300));
        assertThat(stub.count(PING) - before).as("pings in 300 ms at 30 ms").isBetween(3, 15);
        release.countDown();
        await("the push", () -> stub.count(PUSH) == 1);
        await("a ping listing nothing", () -> last(stub.requests(PING)).activeJobIds().isEmpty());
    }

    @Test
    void a_job_whose_push_is_being_retried_stays_in_the_pings() {
        stub.on(PUSH, r -> Response.problem(503, "/problems/overloaded"));
        start(builder(echo()));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));

        await("push retried", () -> stub.count(PUSH) >= 3);
        int pings = stub.count(PING);
        await("a ping while pushing", () -> stub.count(PING) > pings);
        assertThat(last(stub.requests(PING)).activeJobIds()).containsExactly("j1");

        stub.on(PUSH, r -> Response.json(200, Map.of()));
        await("pushed", () -> worker.stats().jobsSucceeded() == 1);
        assertThat(worker.stats().pushRetries()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void a_ping_answered_404_registers_again_and_carries_on() {
        start(builder(echo()));
        stub.forget("bbw_1");

        await("second registration", () -> "w2".equals(worker.workerId()) && worker.state() == WorkerState.RUNNING);
        assertThat(stub.requests(BLOCKS)).hasSize(2);
        assertThat(stub.requests(BLOCKS).get(1).token()).isEqualTo("bbw_2");
        assertThat(worker.stats().reregistrations()).isEqualTo(1);

        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));
        await("pushed under the new id", () -> stub.count(PUSH) == 1);
        Request push = stub.requests(PUSH).get(0);
        assertThat(push.token()).isEqualTo("bbw_2");
        assertThat(push.json()).containsEntry("workerId", "w2");
    }

    @Test
    void a_poll_answered_401_with_the_worker_token_registers_again() {
        stub.once(POLL, Response.problem(401, "/problems/unauthorized"));
        start(builder(echo()));

        await("second registration", () -> "w2".equals(worker.workerId()));
        assertThat(worker.stats().reregistrations()).isEqualTo(1);
    }

    @Test
    void held_jobs_of_a_forgotten_worker_are_cancelled_and_never_pushed() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        start(builder(ctx -> {
            started.countDown();
            ctx.awaitCancellation(Duration.ofSeconds(5));
            return Outcome.success(Map.of());
        }));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));
        started.await();

        stub.forget("bbw_1");

        await("cancelled", () -> worker.stats().jobsCancelled() == 1);
        assertThat(stub.count(PUSH)).isZero();
    }

    @Test
    void with_on_expired_exit_run_returns_expired() {
        stub.on(PING, r -> Response.problem(404, "/problems/worker-not-found"));
        worker = builder(echo()).onExpired(OnExpired.EXIT).build();

        assertThat(worker.run()).isEqualTo(StopReason.EXPIRED);
        assertThat(stub.count(REGISTER)).isEqualTo(1);
        assertThat(stub.count(UNREGISTER)).as("a forgotten worker has nothing to unregister").isZero();
    }

    // ---- polls --------------------------------------------------------------------------------------------

    @Test
    void a_poll_answered_429_waits_for_retry_after() {
        stub.once(POLL, Response.problem(429, "/problems/too-many-parked-polls").withHeader("Retry-After", "1"));
        start(builder(echo()));

        await("a second poll", () -> stub.count(POLL) >= 2);
        List<Request> polls = stub.requests(POLL);
        Duration gap = Duration.ofNanos(polls.get(1).atNanos() - polls.get(0).atNanos());
        assertThat(gap).isGreaterThanOrEqualTo(Duration.ofMillis(950));
    }

    @Test
    void a_poll_answered_503_waits_for_retry_after_too() {
        stub.once(POLL, Response.problem(503, "/problems/database-unavailable").withHeader("Retry-After", "1"));
        start(builder(echo()));

        await("a second poll", () -> stub.count(POLL) >= 2);
        List<Request> polls = stub.requests(POLL);
        assertThat(Duration.ofNanos(polls.get(1).atNanos() - polls.get(0).atNanos()))
                .isGreaterThanOrEqualTo(Duration.ofMillis(950));
    }

    @Test
    void polls_ask_for_the_free_slots_and_concurrency_is_never_exceeded() {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch firstThree = new CountDownLatch(3); // the slots fill for sure, on a loaded machine too
        start(builder(ctx -> {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            firstThree.countDown();
            firstThree.await(5, TimeUnit.SECONDS);
            Thread.sleep(30);
            running.decrementAndGet();
            return Outcome.success(Map.of());
        }).concurrency(3));
        for (int i = 0; i < 12; i++) {
            stub.offer(job("j" + i, JobType.EXECUTE, 1, Map.of()));
        }

        await("all pushed", () -> worker.stats().jobsSucceeded() == 12);
        assertThat(most.get()).isEqualTo(3);
        assertThat(stub.requests(POLL)).allSatisfy(poll -> {
            assertThat(((Number) poll.json().get("limit")).intValue()).isBetween(1, 3);
            assertThat(poll.json()).containsEntry("workerId", "w1").containsEntry("waitMs", 200L);
        });
        assertThat(stub.requests(PING)).allSatisfy(ping -> assertThat(ping.activeJobIds().size()).isLessThanOrEqualTo(3));
    }

    @Test
    void no_poll_is_sent_while_every_slot_is_taken() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        start(builder(ctx -> {
            release.await();
            return Outcome.success(Map.of());
        }));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));
        await("held", () -> worker.heldJobs() == 1);
        int polls = stub.count(POLL);

        StubServer.sleep(Duration.ofMillis(300));
        assertThat(stub.count(POLL)).isEqualTo(polls);
        release.countDown();
        await("polling again", () -> stub.count(POLL) > polls);
    }

    @Test
    void works_while_the_common_fork_join_pool_is_saturated() throws Exception {
        // JDK 25's HttpClient.sendAsync stalls when the common pool is busy; the worker must not depend on it
        CountDownLatch hold = new CountDownLatch(1);
        int parallelism = java.util.concurrent.ForkJoinPool.getCommonPoolParallelism();
        for (int i = 0; i < parallelism; i++) {
            CompletableFuture.runAsync(() -> {
                try {
                    hold.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        try {
            start(builder(echo()));
            stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));
            await("pushed", () -> worker.stats().jobsSucceeded() == 1);
            await("polling on", () -> stub.count(POLL) >= 3);
        } finally {
            hold.countDown();
        }
    }

    // ---- pushes -------------------------------------------------------------------------------------------

    @Test
    void each_job_type_goes_to_its_method_and_its_outcome_is_pushed() {
        start(builder(new FunctionBlock() {
            @Override
            public Outcome execute(JobContext ctx) {
                return Outcome.success(Map.of("jobId", ctx.jobId(), "attempt", ctx.attempt()));
            }

            @Override
            public Outcome acquire(JobContext ctx) {
                return Outcome.acquired(List.of(Map.of("resource", "scenario")));
            }

            @Override
            public Outcome rollback(JobContext ctx) {
                return Outcome.success(Map.of("rolledBack", true)).withDbUpdates(List.of("undo"));
            }
        }));
        stub.offer(job("e", JobType.EXECUTE, 2, Map.of()));
        stub.offer(job("a", JobType.ACQUIRE, 1, Map.of()));
        stub.offer(job("r", JobType.ROLLBACK, 1, Map.of()));

        await("three pushes", () -> stub.count(PUSH) == 3);
        Map<String, Map<String, Object>> pushes = new java.util.HashMap<>();
        stub.requests(PUSH).forEach(p -> pushes.put((String) p.json().get("jobId"), p.json()));
        assertThat(pushes.get("e")).containsEntry("status", "SUCCESS").containsEntry("attempt", 2L)
                .containsEntry("workerId", "w1").containsEntry("result", Map.of("jobId", "e", "attempt", 2L));
        assertThat(pushes.get("a")).containsEntry("acquires", List.of(Map.of("resource", "scenario")));
        assertThat(pushes.get("r")).containsEntry("result", Map.of("rolledBack", true))
                .containsEntry("dbUpdates", List.of("undo"));
    }

    @Test
    void a_thrown_exception_is_pushed_as_a_failure_with_a_structured_error() {
        start(builder(ctx -> {
            throw new IllegalStateException("device said no");
        }));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));

        await("pushed", () -> stub.count(PUSH) == 1);
        Map<String, Object> push = stub.requests(PUSH).get(0).json();
        assertThat(push).containsEntry("status", "FAILURE").doesNotContainKey("result");
        Map<String, Object> error = Json.object(push.get("error"));
        assertThat(error).containsEntry("type", "java.lang.IllegalStateException")
                .containsEntry("message", "device said no");
        assertThat((String) error.get("stack")).contains("device said no").contains("WorkerTest")
                .hasSizeLessThan(4100);
        await("counted", () -> worker.stats().jobsFailed() == 1);
    }

    @Test
    void a_push_that_fails_on_io_is_sent_again_with_the_same_body() {
        stub.once(PUSH, Response.drop());
        stub.once(PUSH, Response.drop());
        stub.once(PUSH, Response.drop());
        stub.once(PUSH, Response.problem(503, "/problems/overloaded"));
        start(builder(echo()));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of("k", "v")));

        await("pushed", () -> worker.stats().jobsSucceeded() == 1);
        List<Request> pushes = stub.requests(PUSH);
        assertThat(pushes).hasSize(5);
        assertThat(pushes).extracting(Request::body).containsOnly(pushes.get(0).body());
        // the first drop of each pair is resent at once (a closed idle connection), the rest with backoff
        assertThat(worker.stats().pushRetries()).isEqualTo(2);
    }

    @Test
    void a_push_answered_409_is_dropped_and_counted() {
        stub.on(PUSH, r -> Response.problem(409, "/problems/job-not-held"));
        start(builder(echo()));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));

        await("counted", () -> worker.stats().pushConflicts() == 1);
        await("slot freed", () -> worker.heldJobs() == 0);
        StubServer.sleep(Duration.ofMillis(100));
        assertThat(stub.count(PUSH)).isEqualTo(1);
    }

    @Test
    void a_result_the_schema_refuses_is_pushed_as_a_failure_with_the_violations() {
        stub.once(PUSH, Response.json(422, Map.of("type", "/problems/schema-violation", "detail", "bad result",
                "field", "result", "violations", List.of("$: string found, object expected"))));
        start(builder(ctx -> Outcome.success("not an object")));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));

        await("two pushes", () -> stub.count(PUSH) == 2);
        assertThat(stub.requests(PUSH).get(0).json()).containsEntry("status", "SUCCESS")
                .containsEntry("result", "not an object");
        Map<String, Object> failure = stub.requests(PUSH).get(1).json();
        assertThat(failure).containsEntry("status", "FAILURE").doesNotContainKey("result");
        assertThat(Json.object(failure.get("error"))).containsEntry("type", "RESULT_SCHEMA_VIOLATION")
                .containsEntry("violations", List.of("$: string found, object expected"));
        await("counted", () -> worker.stats().schemaViolations() == 1 && worker.stats().jobsFailed() == 1);
    }

    // ---- pushes by /next (API 1.1) -------------------------------------------------------------------------

    @Test
    void a_busy_worker_pushes_and_claims_its_next_job_in_one_round_trip() {
        stub.apiVersion = "1.1";
        for (int i = 0; i < 4; i++) {
            stub.offer(job("j" + i, JobType.EXECUTE, 1, Map.of("n", i)));
        }
        start(builder(ctx -> {
            if (ctx.jobId().equals("j2")) {
                await("a ping listing j2", () -> stub.requests(PING).stream()
                        .anyMatch(r -> r.activeJobIds().contains("j2")));
            }
            return Outcome.success(Map.of("n", ctx.params().get("n")));
        }));

        await("all pushed", () -> worker.stats().jobsSucceeded() == 4);
        assertThat(stub.count(PUSH)).isZero();
        List<Request> nexts = stub.requests(NEXT);
        assertThat(nexts).hasSize(4);
        for (int i = 0; i < 4; i++) {
            Request next = nexts.get(i);
            assertThat(next.token()).isEqualTo("bbw_1");
            assertThat(next.json()).containsEntry("workerId", "w1").containsEntry("limit", 1L);
            assertThat(Json.array(next.json().get("results"))).hasSize(1);
            assertThat(item(next)).containsEntry("jobId", "j" + i).containsEntry("workerId", "w1")
                    .containsEntry("attempt", 1L).containsEntry("status", "SUCCESS")
                    .containsEntry("result", Map.of("n", (long) i));
        }
        assertThat(stub.claimedByPolls.get()).as("only the first job came from a poll").isEqualTo(1);
        assertThat(stub.claimedByNext.get()).isEqualTo(3);
        assertThat(stub.requests(POLL).stream().filter(p -> p.atNanos() < last(nexts).atNanos()))
                .as("no poll while the slot passed from job to job").hasSize(1);
        assertThat(worker.stats().jobsReceived()).isEqualTo(4);
        await("polling for the free slot again", () -> last(stub.requests(POLL)).atNanos() > last(nexts).atNanos());
    }

    @Test
    void a_push_by_next_sent_again_after_an_io_error_or_a_5xx_claims_nothing() {
        stub.apiVersion = "1.1";
        stub.once(NEXT, Response.drop()); // resent at once, as a closed idle connection: without the claim
        stub.once(NEXT, Response.drop()); // then with backoff
        stub.once(NEXT, Response.problem(503, "/problems/database-unavailable"));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of("k", "v")));
        stub.offer(job("j2", JobType.EXECUTE, 1, Map.of())); // waiting while j1's push is retried
        start(builder(echo()));

        await("both pushed", () -> worker.stats().jobsSucceeded() == 2);
        List<Request> pushes = stub.requests(NEXT).stream().filter(r -> item(r).get("jobId").equals("j1")).toList();
        assertThat(pushes).hasSize(4);
        assertThat(pushes).extracting(r -> Json.write(r.json().get("results")))
                .containsOnly(Json.write(pushes.get(0).json().get("results")));
        assertThat(pushes).extracting(r -> r.json().get("limit")).containsExactly(1L, 0L, 0L, 0L);
        assertThat(worker.stats().pushRetries()).isEqualTo(2);
        assertThat(stub.claimedByNext.get()).as("j2 waited for j1's slot, then a poll claimed it").isZero();
        assertThat(stub.claimedByPolls.get()).isEqualTo(2);
    }

    @Test
    void an_item_answered_409_is_dropped_and_counted() {
        stub.apiVersion = "1.1";
        stub.once(NEXT, answered("j1", 409, Map.of("type", "/problems/job-not-held", "detail", "not held"), List.of()));
        start(builder(echo()));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));

        await("counted", () -> worker.stats().pushConflicts() == 1);
        await("slot freed", () -> worker.heldJobs() == 0);
        StubServer.sleep(Duration.ofMillis(100));
        assertThat(stub.count(NEXT)).isEqualTo(1);
        assertThat(worker.stats().jobsSucceeded()).isZero();
        assertThat(worker.stats().reregistrations()).isZero();
    }

    @Test
    void an_item_answered_422_is_pushed_again_as_a_failure_and_a_job_claimed_with_it_is_left_to_the_server() {
        stub.apiVersion = "1.1";
        stub.once(NEXT, answered("j1", 422, Map.of("type", "/problems/schema-violation", "detail", "bad result",
                "field", "result", "violations", List.of("$: string found, object expected")),
                List.of(job("j2", JobType.EXECUTE, 1, Map.of()))));
        AtomicInteger ran = new AtomicInteger();
        start(builder(ctx -> {
            ran.incrementAndGet();
            return Outcome.success("not an object");
        }));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));

        await("two pushes", () -> stub.count(NEXT) == 2);
        List<Request> pushes = stub.requests(NEXT);
        assertThat(item(pushes.get(0))).containsEntry("status", "SUCCESS").containsEntry("result", "not an object");
        Map<String, Object> failure = item(pushes.get(1));
        assertThat(failure).containsEntry("jobId", "j1").containsEntry("status", "FAILURE")
                .doesNotContainKey("result");
        assertThat(Json.object(failure.get("error"))).containsEntry("type", "RESULT_SCHEMA_VIOLATION")
                .containsEntry("violations", List.of("$: string found, object expected"));
        assertThat(pushes.get(1).json()).as("the slot is still j1's: no claim").containsEntry("limit", 0L);
        await("counted", () -> worker.stats().schemaViolations() == 1 && worker.stats().jobsFailed() == 1);
        await("slot freed", () -> worker.heldJobs() == 0);
        StubServer.sleep(Duration.ofMillis(150));
        assertThat(ran.get()).as("j2, claimed beside a push that was not over, never ran").isEqualTo(1);
        assertThat(stub.requests(PING)).noneMatch(p -> p.activeJobIds().contains("j2"));
        assertThat(worker.stats().jobsReceived()).isEqualTo(1);
    }

    @Test
    void a_next_answered_404_registers_again_but_an_items_404_only_drops_the_result() {
        stub.apiVersion = "1.1";
        stub.once(NEXT, answered("j1", 404, Map.of("type", "/problems/job-not-found"), List.of()));
        stub.once(NEXT, Response.problem(404, "/problems/worker-not-found"));
        start(builder(echo()));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));
        await("dropped", () -> worker.stats().pushesDropped() == 1);
        assertThat(worker.stats().reregistrations()).isZero();

        stub.offer(job("j2", JobType.EXECUTE, 1, Map.of()));

        await("second registration", () -> "w2".equals(worker.workerId()));
        assertThat(worker.stats().reregistrations()).isEqualTo(1);
        assertThat(worker.stats().pushesDropped()).isEqualTo(2);
    }

    @Test
    void a_quiet_worker_pushes_by_next_without_claiming() throws Exception {
        stub.apiVersion = "1.1";
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        start(builder(ctx -> {
            started.countDown();
            release.await();
            return Outcome.success(Map.of());
        }).concurrency(2));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));
        stub.offer(job("j2", JobType.EXECUTE, 1, Map.of()));
        started.await();
        stub.directive = "QUIET";
        await("QUIET", () -> worker.state() == WorkerState.QUIET);
        stub.offer(job("j3", JobType.EXECUTE, 1, Map.of()));

        release.countDown();
        await("both pushed", () -> worker.stats().jobsSucceeded() == 2);
        assertThat(stub.requests(NEXT)).hasSize(2)
                .allSatisfy(r -> assertThat(r.json()).containsEntry("limit", 0L));
        assertThat(worker.stats().jobsReceived()).isEqualTo(2);
    }

    @Test
    void a_draining_worker_pushes_by_next_without_claiming() throws Exception {
        stub.apiVersion = "1.1";
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        start(builder(ctx -> {
            started.countDown();
            release.await();
            return Outcome.success(Map.of());
        }));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));
        started.await();
        stub.offer(job("j2", JobType.EXECUTE, 1, Map.of()));

        CompletableFuture<Void> close = CompletableFuture.runAsync(worker::close);
        await("DRAINING", () -> worker.state() == WorkerState.DRAINING);
        release.countDown();
        close.get(5, TimeUnit.SECONDS);

        assertThat(stub.requests(NEXT)).singleElement()
                .satisfies(r -> assertThat(r.json()).containsEntry("limit", 0L));
        assertThat(worker.stats().jobsSucceeded()).isEqualTo(1);
        assertThat(worker.stats().jobsReceived()).isEqualTo(1);
    }

    @Test
    void a_replica_that_does_not_know_next_gets_the_push_by_result_and_the_worker_goes_on() {
        stub.apiVersion = "1.1";
        // an older replica behind the same address, mid-upgrade: its security answers the unknown path 403
        stub.once(NEXT, Response.problem(403, "/problems/forbidden"));
        start(builder(echo()));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));
        await("pushed", () -> worker.stats().jobsSucceeded() == 1);
        stub.offer(job("j2", JobType.EXECUTE, 1, Map.of()));

        await("pushed again", () -> worker.stats().jobsSucceeded() == 2);
        assertThat(stub.count(NEXT)).isEqualTo(1);
        assertThat(stub.count(PUSH)).as("this registration pushes by /result from then on").isEqualTo(2);
        assertThat(worker.stats().reregistrations()).isZero();
        assertThat(worker.stats().pushesDropped()).isZero();
    }

    @Test
    void a_server_of_api_1_keeps_the_single_push() {
        stub.apiVersion = "1";
        start(builder(echo()));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));

        await("pushed", () -> worker.stats().jobsSucceeded() == 1);
        assertThat(stub.count(PUSH)).isEqualTo(1);
        assertThat(stub.count(NEXT)).isZero();
    }

    @Test
    void concurrency_is_never_exceeded_when_polls_and_next_both_claim() {
        stub.apiVersion = "1.1";
        stub.pingIntervalMs = 10;
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger mostHeld = new AtomicInteger();
        start(builder(ctx -> {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            mostHeld.accumulateAndGet(worker.heldJobs(), Math::max);
            Thread.sleep(5 + (ctx.jobId().hashCode() & 15));
            running.decrementAndGet();
            return Outcome.success(Map.of());
        }).concurrency(3));
        for (int round = 0; round < 6; round++) {
            for (int i = 0; i < 8; i++) {
                stub.offer(job("j" + round + "-" + i, JobType.EXECUTE, 1, Map.of()));
            }
            StubServer.sleep(Duration.ofMillis(40)); // polls and pushes meet in every phase of the work
        }

        await("all pushed", () -> worker.stats().jobsSucceeded() == 48);
        // never past 3; and at least 2 at once, so the slots were shared (all 3 at once is not certain on a busy machine)
        assertThat(most.get()).isBetween(2, 3);
        assertThat(mostHeld.get()).isLessThanOrEqualTo(3);
        assertThat(stub.claimedByPolls.get()).as("the poll loop claimed").isPositive();
        assertThat(stub.claimedByNext.get()).as("/next claimed").isPositive();
        assertThat(stub.claimedByPolls.get() + stub.claimedByNext.get()).isEqualTo(48);
        assertThat(stub.requests(POLL)).allSatisfy(poll ->
                assertThat(((Number) poll.json().get("limit")).intValue()).isBetween(1, 3));
        assertThat(stub.requests(NEXT)).allSatisfy(next ->
                assertThat(((Number) next.json().get("limit")).intValue()).isBetween(0, 1));
        assertThat(stub.requests(PING)).allSatisfy(ping -> assertThat(ping.activeJobIds().size()).isLessThanOrEqualTo(3));
    }

    // ---- directives and cancels ---------------------------------------------------------------------------

    @Test
    void quiet_stops_polling_and_run_resumes_it() {
        start(builder(echo()));
        stub.directive = "QUIET";
        await("QUIET", () -> worker.state() == WorkerState.QUIET);
        StubServer.sleep(Duration.ofMillis(250)); // the poll parked before QUIET came back
        int polls = stub.count(POLL);

        StubServer.sleep(Duration.ofMillis(400));
        assertThat(stub.count(POLL)).as("polls while QUIET").isEqualTo(polls);
        assertThat(stub.count(PING)).isGreaterThan(3);

        stub.directive = "RUN";
        await("RUNNING", () -> worker.state() == WorkerState.RUNNING);
        await("polling again", () -> stub.count(POLL) > polls);
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));
        await("a job after RUN", () -> worker.stats().jobsSucceeded() == 1);
    }

    @Test
    void terminate_drains_the_held_jobs_and_stops() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        worker = builder(ctx -> {
            started.countDown();
            release.await();
            return Outcome.success(Map.of("done", true));
        }).build();
        CompletableFuture<StopReason> run = CompletableFuture.supplyAsync(worker::run);
        await("RUNNING", () -> worker.state() == WorkerState.RUNNING);
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));
        started.await();

        stub.directive = "TERMINATE";
        await("DRAINING", () -> worker.state() == WorkerState.DRAINING);
        int polls = stub.count(POLL);
        release.countDown();

        assertThat(run.get(5, TimeUnit.SECONDS)).isEqualTo(StopReason.TERMINATED);
        assertThat(stub.count(PUSH)).isEqualTo(1);
        assertThat(stub.count(POLL)).isEqualTo(polls);
        assertThat(last(stub.requests())).satisfies(r -> assertThat(StubServer.matches(UNREGISTER, r)).isTrue());
    }

    @Test
    void cancel_job_ids_set_the_cancel_flag_and_nothing_is_pushed() throws Exception {
        CountDownLatch sawCancel = new CountDownLatch(1);
        start(builder(ctx -> {
            if (ctx.awaitCancellation(Duration.ofSeconds(5))) {
                sawCancel.countDown();
            }
            return Outcome.success(Map.of("ignored", true));
        }));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));
        await("held", () -> worker.heldJobs() == 1);

        stub.cancelJobIds.add("j1");

        assertThat(sawCancel.await(2, TimeUnit.SECONDS)).isTrue();
        await("counted", () -> worker.stats().jobsCancelled() == 1 && worker.heldJobs() == 0);
        assertThat(stub.count(PUSH)).isZero();
    }

    @Test
    void a_cancel_during_push_retries_stops_them() {
        stub.on(PUSH, r -> Response.problem(503, "/problems/overloaded"));
        start(builder(echo()));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));
        await("retrying", () -> stub.count(PUSH) >= 2);

        stub.cancelJobIds.add("j1");

        await("dropped", () -> worker.stats().jobsCancelled() == 1 && worker.heldJobs() == 0);
        int pushes = stub.count(PUSH);
        StubServer.sleep(Duration.ofMillis(150));
        assertThat(stub.count(PUSH)).isEqualTo(pushes);
    }

    // ---- shutdown -----------------------------------------------------------------------------------------

    @Test
    void close_aborts_the_parked_poll_drains_releases_after_the_orphan_grace_then_unregisters() throws Exception {
        stub.pollHoldMs = 30_000;
        stub.orphanGraceMs = 300;
        stub.pingIntervalMs = 40;
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // the job comes from a first, quick poll; the next poll parks for 30 s
        stub.once(POLL, r -> Response.json(200, List.of(job("j1", JobType.EXECUTE, 1, Map.of()))));
        start(builder(ctx -> {
            started.countDown();
            release.await();
            return Outcome.success(Map.of());
        }).concurrency(2).pollWait(Duration.ofSeconds(30)));
        started.await();
        await("the second poll parked", () -> stub.count(POLL) == 2);

        long closing = System.nanoTime();
        CompletableFuture<Void> close = CompletableFuture.runAsync(worker::close);
        await("DRAINING", () -> worker.state() == WorkerState.DRAINING);
        StubServer.sleep(Duration.ofMillis(100));
        assertThat(last(stub.requests(PING)).activeJobIds()).containsExactly("j1");
        release.countDown();
        close.get(5, TimeUnit.SECONDS);

        Duration took = Duration.ofNanos(System.nanoTime() - closing);
        assertThat(took).as("the parked poll was not waited out").isLessThan(Duration.ofSeconds(3));
        assertThat(stub.count(POLL)).isEqualTo(2);
        List<Request> all = stub.requests();
        Request unregister = last(all);
        assertThat(StubServer.matches(UNREGISTER, unregister)).isTrue();
        assertThat(unregister.token()).isEqualTo("bbw_1");
        Request releasePing = last(stub.requests(PING));
        assertThat(all.indexOf(releasePing)).isGreaterThan(all.size() - 4); // then the claims check, unregister
        assertThat(releasePing.activeJobIds()).isEmpty();
        assertThat(Duration.ofNanos(releasePing.atNanos() - closing)).as("release ping after the orphan grace")
                .isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(stub.requests(PUSH)).hasSize(1);
        assertThat(worker.state()).isEqualTo(WorkerState.STOPPED);
        assertThat(worker.stopReason()).isEqualTo(StopReason.CLOSED);
    }

    @Test
    void a_claim_the_aborted_poll_made_after_the_abort_is_released_by_a_second_ping() {
        stub.orphanGraceMs = 200;
        start(builder(echo()));
        // the server still has a POLLED job for us that no poll answer ever brought
        stub.once(CLAIMS, Response.json(200, List.of(job("lost", JobType.EXECUTE, 1, Map.of()))));

        worker.close();

        List<Request> all = stub.requests();
        assertThat(StubServer.matches(UNREGISTER, last(all))).isTrue();
        Request second = all.get(all.size() - 2);
        assertThat(StubServer.matches(PING, second)).isTrue();
        assertThat(second.activeJobIds()).isEmpty();
        Request claims = stub.requests(CLAIMS).get(0);
        assertThat(claims.query()).contains("status=POLLED");
        assertThat(Duration.ofNanos(second.atNanos() - claims.atNanos())).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        assertThat(stub.requests(CLAIMS)).hasSize(1);
    }

    @Test
    void jobs_still_running_after_the_drain_timeout_are_given_up_listed_and_never_pushed() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        start(builder(ctx -> {
            started.countDown();
            Thread.sleep(2_000); // ignores its cancel flag for a while
            return Outcome.success(Map.of());
        }).drainTimeout(Duration.ofMillis(200)));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));
        started.await();

        long closing = System.nanoTime();
        worker.close();

        assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(2));
        List<Request> all = stub.requests();
        assertThat(StubServer.matches(UNREGISTER, last(all))).isTrue();
        Request lastPing = last(stub.requests(PING));
        assertThat(lastPing.activeJobIds()).as("a job still running is listed, never released")
                .containsExactly("j1");
        assertThat(stub.count(PUSH)).isZero();
    }

    @Test
    void close_now_skips_the_drain_and_unregisters_at_once() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        start(builder(ctx -> {
            started.countDown();
            ctx.awaitCancellation(Duration.ofSeconds(10));
            return Outcome.success(Map.of());
        }));
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));
        started.await();
        worker.requestStop(); // the first signal: draining
        await("DRAINING", () -> worker.state() == WorkerState.DRAINING);

        long forcing = System.nanoTime();
        worker.closeNow(); // the second signal

        assertThat(Duration.ofNanos(System.nanoTime() - forcing)).isLessThan(Duration.ofSeconds(1));
        assertThat(StubServer.matches(UNREGISTER, last(stub.requests()))).isTrue();
        assertThat(stub.count(PUSH)).isZero();
    }

    @Test
    void close_before_start_starts_nothing() {
        worker = builder(echo()).build();
        worker.close();

        assertThat(worker.state()).isEqualTo(WorkerState.STOPPED);
        assertThat(stub.requests()).isEmpty();
        assertThatThrownBy(worker::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void close_while_the_server_is_unreachable_returns_promptly() {
        stub.on(REGISTER, r -> Response.problem(503, "/problems/database-unavailable"));
        worker = builder(echo()).backoff(Duration.ofSeconds(5), Duration.ofSeconds(30), 2).build();
        worker.start();
        await("registering", () -> stub.count(REGISTER) >= 1);

        long closing = System.nanoTime();
        worker.close();

        assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(1));
        assertThat(stub.count(UNREGISTER)).isZero();
    }

    /** A /next answered 200, its one item with {@code status} and {@code problem}, and {@code jobs} claimed. */
    private static Response answered(String jobId, int status, Map<String, Object> problem, List<Object> jobs) {
        return Response.json(200, Map.of("results", List.of(Map.of("jobId", jobId, "status", status, "problem",
                problem)), "jobs", jobs));
    }

    /** The one push a /next request carries. */
    private static Map<String, Object> item(Request next) {
        return Json.object(Json.array(next.json().get("results")).get(0));
    }

    private static Request last(List<Request> requests) {
        return requests.get(requests.size() - 1);
    }
}
