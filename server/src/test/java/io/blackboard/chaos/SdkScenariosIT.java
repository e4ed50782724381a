package io.blackboard.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.chaos.ScenarioWorker.Sdk;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

/**
 * The scenarios both worker SDKs must pass, one list for both: each SDK's scenario worker runs
 * as a process of its own against the real server jar (and, where the network matters, through
 * {@link FaultProxy}), with short thresholds, and the verdict is read from the server's API.
 */
class SdkScenariosIT {

    /** Fast enough that a lease, a ping and a sweep each take well under a second. */
    private static final Map<String, String> SERVER = Map.of(
            "WORKER_PING_INTERVAL_MS", "500",
            "BLACKBOARD_STUCK_JOB_TIMEOUT", "3000",
            "BLACKBOARD_JOB_CHECK_INTERVAL", "500",
            "BLACKBOARD_ORPHAN_GRACE_MS", "1000",
            "BLACKBOARD_POLL_RECHECK_MS", "500");

    private static ChaosDatabase database;
    private static Replica server;
    private final List<AutoCloseable> running = new ArrayList<>();
    private Api engine;
    private Api operator;

    @BeforeAll
    static void startServer() {
        database = ChaosDatabase.fromEnvironment();
        server = new Replica("sdk", database, SERVER).start();
    }

    @AfterAll
    static void stopServer() throws InterruptedException {
        server.close();
    }

    @BeforeEach
    void emptyTables() {
        if (!server.alive()) {
            server.start();
        }
        database.reset();
        engine = server.api().as("test-engine");
        operator = server.api().as("test-operator");
    }

    @AfterEach
    void stopWorkers() throws Exception {
        for (AutoCloseable process : running.reversed()) {
            process.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Sdk.class)
    void everyJobTypeRunsEndToEndAndItsResultReachesTheFeed(Sdk sdk) {
        ScenarioWorker worker = worker(sdk, "types-" + sdk, server.api().baseUrl(), Map.of());
        UUID block = awaitBlock(worker);

        UUID acquire = create(block, "ACQUIRE", Map.of());
        UUID execute = create(block, "EXECUTE", Map.of("result", Map.of("lines", 120)));
        UUID rollback = create(block, "ROLLBACK", Map.of());
        UUID failing = create(block, "EXECUTE", Map.of("fail", "device refused the session"));

        JsonNode done = awaitEnded(execute);
        assertThat(done.at("/outcome").asString()).isEqualTo("SUCCESS");
        assertThat(done.at("/result/echo/lines").asInt()).isEqualTo(120);
        assertThat(done.at("/result/jobId").asString()).isEqualTo(execute.toString());
        JsonNode acquired = awaitEnded(acquire);
        assertThat(acquired.at("/outcome").asString()).as(acquired.toString()).isEqualTo("SUCCESS");
        assertThat(acquired.at("/acquires/0/resource").asString()).isEqualTo("scenario");
        assertThat(awaitEnded(rollback).at("/result/rolledBack").asBoolean()).isTrue();
        JsonNode failed = awaitEnded(failing);
        assertThat(failed.at("/outcome").asString()).isEqualTo("FAILURE");
        assertThat(failed.at("/failureReason").asString()).isEqualTo("WORKER_REPORTED");
        assertThat(failed.at("/error").toString()).contains("device refused the session");

        JsonNode feed = engine.get("/blackboard/results?after=0-0&limit=100").body();
        assertThat(feed.at("/results").size()).isEqualTo(4);
        assertThat(operator.get("/workers/" + workerId(worker)).at("/sdkName").asString())
                .startsWith("blackboard-");
    }

    @ParameterizedTest
    @EnumSource(Sdk.class)
    void concurrencyIsNeverExceeded(Sdk sdk) {
        ScenarioWorker worker = worker(sdk, "slots-" + sdk, server.api().baseUrl(),
                Map.of("BLACKBOARD_CONCURRENCY", "2"));
        UUID block = awaitBlock(worker);
        List<UUID> jobs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            jobs.add(create(block, "EXECUTE", Map.of("sleepMs", 300)));
        }
        UUID id = workerId(worker);
        int most = 0;
        long deadline = deadline(Duration.ofSeconds(40));
        while (!jobs.stream().allMatch(this::ended)) {
            int held = operator.get("/workers/" + id).at("/heldJobs").asInt();
            most = Math.max(most, held);
            assertThat(held).as("jobs held at once").isLessThanOrEqualTo(2);
            assertThat(System.nanoTime() - deadline).as("the jobs end").isNegative();
            Replica.sleep(20);
        }
        assertThat(most).as("both slots were used").isEqualTo(2);
        // the database says the same of every moment: no third claim started before one of two ended
        assertThat(database.jdbc().sql("""
                select count(*) from job a join job b on a.id < b.id join job c on b.id < c.id
                 where a.polled_at < b.pushed_at and b.polled_at < a.pushed_at
                   and a.polled_at < c.pushed_at and c.polled_at < a.pushed_at
                   and b.polled_at < c.pushed_at and c.polled_at < b.pushed_at""").query(Long.class).single())
                .isZero();
        jobs.forEach(job -> assertThat(job(job).at("/outcome").asString()).isEqualTo("SUCCESS"));
    }

    @ParameterizedTest
    @EnumSource(Sdk.class)
    void aJobLongerThanTheStuckTimeoutSucceedsBecauseThePingExtendsIt(Sdk sdk) {
        ScenarioWorker worker = worker(sdk, "long-" + sdk, server.api().baseUrl(), Map.of());
        UUID block = awaitBlock(worker);
        UUID job = create(block, "EXECUTE", Map.of("sleepMs", 6000)); // twice the 3 s stuck timeout

        JsonNode done = awaitEnded(job);
        assertThat(done.at("/outcome").asString()).isEqualTo("SUCCESS");
        assertThat(done.at("/attempt").asInt()).isEqualTo(1);
        assertThat(kinds(job)).doesNotContain("FAILED", "REQUEUED");
    }

    @ParameterizedTest
    @EnumSource(Sdk.class)
    void aPushWhoseAnswerIsLostIsSentAgainAndLandsExactlyOnce(Sdk sdk) throws Exception {
        FaultProxy proxy = proxy();
        proxy.dropAnswers(1, SdkScenariosIT::isPush);
        ScenarioWorker worker = worker(sdk, "lost-push-" + sdk, proxy.url(), Map.of());
        UUID block = awaitBlock(worker);
        UUID job = create(block, "EXECUTE", Map.of("result", Map.of("lines", 7)));

        assertThat(awaitEnded(job).at("/outcome").asString()).isEqualTo("SUCCESS");
        await(() -> proxy.seen().stream().filter(s -> isPush(s.path())).count() >= 2,
                Duration.ofSeconds(20), "the push is sent again");
        assertThat(kinds(job).stream().filter("PUSHED"::equals).count()).as("PUSHED events").isEqualTo(1);
        assertThat(proxy.seen().stream().filter(s -> isPush(s.path()))
                .map(FaultProxy.Seen::status)).as("the lost answer, then the same result again: 200")
                .startsWith(-1).contains(200).doesNotContain(409);
    }

    @ParameterizedTest
    @EnumSource(Sdk.class)
    void theServerKilledAndRestartedMidJobAndTheJobStillCompletes(Sdk sdk) throws Exception {
        ScenarioWorker worker = worker(sdk, "restart-" + sdk, server.api().baseUrl(), Map.of());
        UUID block = awaitBlock(worker);
        UUID job = create(block, "EXECUTE", Map.of("sleepMs", 2000), Map.of("maxAttempts", 3));
        await(() -> worker.logged("started", job.toString()), Duration.ofSeconds(20), "the job starts");

        server.kill9();
        server.start();

        JsonNode done = awaitEnded(job);
        assertThat(done.at("/outcome").asString()).isEqualTo("SUCCESS");
        assertThat(worker.alive()).as("the worker rode out the outage").isTrue();
        UUID next = create(block, "EXECUTE", Map.of());
        assertThat(awaitEnded(next).at("/outcome").asString()).isEqualTo("SUCCESS");
    }

    @ParameterizedTest
    @EnumSource(Sdk.class)
    void anOperatorDeleteMakesTheWorkerRegisterAgainAndGoOn(Sdk sdk) {
        ScenarioWorker worker = worker(sdk, "deleted-" + sdk, server.api().baseUrl(), Map.of());
        UUID block = awaitBlock(worker);
        UUID first = workerId(worker);
        assertThat(operator.delete("/workers/" + first).status()).isEqualTo(204);

        await(() -> liveWorker(worker.name()) != null && !liveWorker(worker.name()).equals(first),
                Duration.ofSeconds(20), "the worker registers again");
        UUID job = create(block, "EXECUTE", Map.of());
        JsonNode done = awaitEnded(job);
        assertThat(done.at("/outcome").asString()).isEqualTo("SUCCESS");
        assertThat(done.at("/workerId").asString()).isEqualTo(liveWorker(worker.name()).toString());
        assertThat(operator.get("/workers/" + liveWorker(worker.name()) + "/function-blocks").body().size())
                .as("its function blocks registered again").isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Sdk.class)
    void quietMeansNoPollsRunResumesAndTerminateEndsOffline(Sdk sdk) throws Exception {
        FaultProxy proxy = proxy();
        ScenarioWorker worker = worker(sdk, "directed-" + sdk, proxy.url(), Map.of());
        UUID block = awaitBlock(worker);
        UUID id = workerId(worker);

        assertThat(operator.put("/workers/" + id + "/directive", Map.of("directive", "QUIET")).status())
                .isEqualTo(200);
        long quiet = System.nanoTime();
        // a poll parked before the worker heard (its next ping, 0.5 s) ends within its 2 s wait
        Replica.sleep(3_000);
        long settled = System.nanoTime();
        UUID job = create(block, "EXECUTE", Map.of());
        Replica.sleep(3_000);
        assertThat(proxy.seen("POST", "/blackboard/job", settled)).as("polls while QUIET").isEmpty();
        assertThat(proxy.seen("POST", "/workers/" + id + "/ping", quiet)).as("pings go on").isNotEmpty();
        assertThat(job(job).at("/status").asString()).isEqualTo("PENDING");

        assertThat(operator.put("/workers/" + id + "/directive", Map.of("directive", "RUN")).status())
                .isEqualTo(200);
        assertThat(awaitEnded(job).at("/outcome").asString()).isEqualTo("SUCCESS");

        assertThat(operator.put("/workers/" + id + "/directive", Map.of("directive", "TERMINATE")).status())
                .isEqualTo(200);
        assertThat(worker.awaitExit(Duration.ofSeconds(30))).as("exit code").isZero();
        assertThat(operator.get("/workers/" + id).at("/state").asString()).isEqualTo("OFFLINE");
    }

    @ParameterizedTest
    @EnumSource(Sdk.class)
    void anEngineCancelReachesTheHandlerWithinAPingInterval(Sdk sdk) throws Exception {
        FaultProxy proxy = proxy();
        ScenarioWorker worker = worker(sdk, "cancelled-" + sdk, proxy.url(), Map.of());
        UUID block = awaitBlock(worker);
        UUID job = create(block, "EXECUTE", Map.of("sleepMs", 30_000));
        await(() -> worker.logged("started", job.toString()), Duration.ofSeconds(20), "the job starts");

        assertThat(engine.post("/blackboard/jobs/" + job + "/cancel", null).status()).isEqualTo(200);
        long cancelled = System.nanoTime();
        await(() -> worker.logged("cancelled", job.toString()), Duration.ofSeconds(5), "the handler sees the cancel");
        long tookMs = (System.nanoTime() - cancelled) / 1_000_000;
        assertThat(tookMs).as("within one ping interval (500 ms), with room for a busy machine").isLessThan(2_500);

        UUID next = create(block, "EXECUTE", Map.of());
        assertThat(awaitEnded(next).at("/outcome").asString()).as("its slot is free again").isEqualTo("SUCCESS");
        assertThat(proxy.seen().stream().filter(s -> isPush(s.path())))
                .as("nothing pushed for the cancelled job").noneMatch(s -> s.body().contains(job.toString()))
                .as("and no push refused").allMatch(s -> s.status() == 200);
        assertThat(job(job).at("/outcome").asString()).isEqualTo("CANCELLED");
    }

    @ParameterizedTest
    @EnumSource(Sdk.class)
    void sigtermMidJobDrainsTheJobGoesOfflineAndExitsZero(Sdk sdk) throws Exception {
        ScenarioWorker worker = worker(sdk, "sigterm-" + sdk, server.api().baseUrl(),
                Map.of("BLACKBOARD_CONCURRENCY", "2"));
        UUID block = awaitBlock(worker);
        UUID id = workerId(worker);
        UUID job = create(block, "EXECUTE", Map.of("sleepMs", 2000));
        await(() -> worker.logged("started", job.toString()), Duration.ofSeconds(20), "the job starts");

        worker.terminate();
        UUID late = create(block, "EXECUTE", Map.of()); // may meet the poll the worker aborts

        assertThat(worker.awaitExit(Duration.ofSeconds(30))).as("exit code").isZero();
        assertThat(job(job).at("/outcome").asString()).isEqualTo("SUCCESS");
        assertThat(operator.get("/workers/" + id).at("/state").asString()).isEqualTo("OFFLINE");
        assertThat(job(late).at("/failureReason").isNull()).as("no lost claim failed: " + job(late)).isTrue();
        assertThat(database.jdbc().sql("select count(*) from job where failure_reason is not null")
                .query(Long.class).single()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Sdk.class)
    void theParkedPollCapsAnswer429IsHonoured(Sdk sdk) throws Exception {
        Map<String, String> capped = new HashMap<>(SERVER);
        capped.put("BLACKBOARD_MAX_PARKED_POLLS", "1");
        try (Replica small = new Replica("sdk-capped", database, capped).start();
                FaultProxy proxy = new FaultProxy(small.port())) {
            List<ScenarioWorker> workers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                workers.add(worker(sdk, "capped-" + i + "-" + sdk, proxy.url(), Map.of()));
            }
            UUID block = awaitBlock(workers.getFirst(), small.api());
            await(() -> proxy.seen().stream().anyMatch(s -> s.status() == 429), Duration.ofSeconds(20),
                    "a poll is refused");
            Replica.sleep(3_000);
            for (FaultProxy.Seen refused : proxy.seen().stream().filter(s -> s.status() == 429).toList()) {
                long waitNanos = Duration.ofSeconds(Long.parseLong(refused.retryAfter())).toNanos();
                assertThat(proxy.seen("POST", "/blackboard/job", refused.atNanos() + 1).stream()
                        .filter(s -> s.atNanos() - refused.atNanos() < waitNanos * 9 / 10).count())
                        .as("polls sooner than Retry-After (%s s) after a 429", refused.retryAfter())
                        .isLessThanOrEqualTo(2); // the two other workers' polls may come meanwhile
            }
            List<UUID> jobs = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                jobs.add(create(small.api().as("test-engine"), block, "EXECUTE", Map.of(), Map.of()));
            }
            for (UUID job : jobs) {
                assertThat(awaitEnded(small.api().as("test-engine"), job).at("/outcome").asString())
                        .isEqualTo("SUCCESS");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Sdk.class)
    void aResultThatBreaksTheSchemaIsReportedAsAFailureWithItsViolations(Sdk sdk) {
        ScenarioWorker worker = worker(sdk, "schema-" + sdk, server.api().baseUrl(), Map.of());
        UUID block = awaitBlock(worker);
        UUID job = create(block, "EXECUTE", Map.of("badResult", true));

        JsonNode done = awaitEnded(job);
        assertThat(done.at("/outcome").asString()).isEqualTo("FAILURE");
        assertThat(done.at("/error").toString()).containsIgnoringCase("schema");
    }

    @ParameterizedTest
    @EnumSource(Sdk.class)
    void aBadEnrolmentTokenFailsFastWithoutARetryStorm(Sdk sdk) throws Exception {
        FaultProxy proxy = proxy();
        ScenarioWorker worker = worker(sdk, "bad-token-" + sdk, proxy.url(),
                Map.of("BLACKBOARD_WORKER_TOKEN", "not-a-token"));

        assertThat(worker.awaitExit(Duration.ofSeconds(20))).as("exit code").isNotZero();
        assertThat(proxy.seen("POST", "/workers/register", 0).size()).as("registration attempts").isLessThanOrEqualTo(3);
    }

    // -- helpers

    /** A push: one (/result), a batch (/results), or one with the next claim (/next, API 1.1). */
    private static boolean isPush(String path) {
        return path.startsWith("/blackboard/job/result") || path.equals("/blackboard/job/next");
    }

    private ScenarioWorker worker(Sdk sdk, String name, String url, Map<String, String> env) {
        ScenarioWorker worker = ScenarioWorker.start(sdk, name, url, env);
        running.add(worker);
        return worker;
    }

    private FaultProxy proxy() throws java.io.IOException {
        FaultProxy proxy = new FaultProxy(server.port());
        running.add(proxy);
        return proxy;
    }

    private UUID awaitBlock(ScenarioWorker worker) {
        return awaitBlock(worker, server.api());
    }

    /** Waits for the worker to be ONLINE with its function block, and answers the block's id. */
    private UUID awaitBlock(ScenarioWorker worker, Api api) {
        await(() -> {
            if (!worker.alive()) {
                throw new AssertionError(worker.name() + " exited; see target/sdk-scenarios/" + worker.name() + ".log");
            }
            UUID id = liveWorker(api, worker.name());
            return id != null && api.as("test-operator").get("/workers/" + id + "/function-blocks").body().size() == 1;
        }, Duration.ofSeconds(60), worker.name() + " registers");
        UUID id = liveWorker(api, worker.name());
        return UUID.fromString(api.as("test-operator").get("/workers/" + id + "/function-blocks").at("/0/id").asString());
    }

    private UUID workerId(ScenarioWorker worker) {
        return liveWorker(worker.name());
    }

    private UUID liveWorker(String name) {
        return liveWorker(server.api(), name);
    }

    private static UUID liveWorker(Api api, String name) {
        for (JsonNode worker : api.as("test-operator").get("/workers").body()) {
            if (worker.at("/name").asString().equals(name) && worker.at("/deletedAt").isNull()) {
                return UUID.fromString(worker.at("/id").asString());
            }
        }
        return null;
    }

    private UUID create(UUID block, String type, Map<String, Object> params) {
        return create(block, type, params, Map.of());
    }

    private UUID create(UUID block, String type, Map<String, Object> params, Map<String, Object> extra) {
        return create(engine, block, type, params, extra);
    }

    private static UUID create(Api engine, UUID block, String type, Map<String, Object> params,
            Map<String, Object> extra) {
        Map<String, Object> body = new HashMap<>(extra);
        body.putAll(Map.of("functionBlockId", block, "type", type, "payload", params));
        Api.Response created = engine.post("/blackboard/jobs", body);
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return UUID.fromString(created.at("/id").asString());
    }

    private JsonNode job(UUID job) {
        return engine.get("/blackboard/jobs/" + job).body();
    }

    private boolean ended(UUID job) {
        return "PUSHED".equals(job(job).at("/status").asString());
    }

    private JsonNode awaitEnded(UUID job) {
        return awaitEnded(engine, job);
    }

    private static JsonNode awaitEnded(Api engine, UUID job) {
        await(() -> "PUSHED".equals(engine.get("/blackboard/jobs/" + job).at("/status").asString()),
                Duration.ofSeconds(60), "job " + job + " ends");
        return engine.get("/blackboard/jobs/" + job).body();
    }

    private List<String> kinds(UUID job) {
        List<String> kinds = new ArrayList<>();
        engine.get("/blackboard/jobs/" + job + "/events").body().forEach(e -> kinds.add(e.at("/kind").asString()));
        return kinds;
    }

    private static long deadline(Duration within) {
        return System.nanoTime() + within.toNanos();
    }

    private static void await(BooleanSupplier condition, Duration within, String what) {
        long deadline = deadline(within);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(what + ": not within " + within);
            }
            Replica.sleep(100);
        }
    }
}
