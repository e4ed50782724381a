package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.blackboard.Api;
import io.blackboard.BlackboardApplication;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.TestPropertySource;

/**
 * Long polls and waiting result-feed readers, with the periodic re-check set to a minute: every
 * wake-up seen here within seconds came from a notification, in-process or through PostgreSQL.
 */
@TestPropertySource(properties = "blackboard.job.poll-recheck=60000")
class LongPollTest extends BlackboardTest {

    static ConfigurableApplicationContext secondReplica;

    @Autowired
    PollWaiters waiters;

    @Autowired
    ResultWaiters readers;

    @Autowired
    JobNotifications notifications;

    @Autowired
    DataSource pooled;

    /** The pool itself, behind the server's {@code DeadlineDataSource}. */
    HikariDataSource dataSource;

    @BeforeEach
    void unwrapThePool() throws SQLException {
        dataSource = pooled.unwrap(HikariDataSource.class);
    }

    final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();

    @BeforeEach
    void setUp() {
        workerServingEcho(Map.of("concurrency", 5));
    }

    @AfterEach
    void tearDown() {
        // answer every poll still parked, so none re-checks while the next test resets tables
        waiters.stop();
        awaitTrue(() -> waiters.parked() == 0 && readers.waiting() == 0, "no parked polls or feed readers");
        waiters.start();
        pool.shutdownNow();
    }

    @AfterAll
    static void stopSecondReplica() {
        if (secondReplica != null) {
            secondReplica.close();
            secondReplica = null;
        }
    }

    @Test
    void withoutWaitMsAnEmptyPollAnswersAtOnce() {
        long start = System.nanoTime();
        assertThat(claim(worker, 1)).isEmpty();
        assertThat(elapsedMs(start)).isLessThan(1000);
    }

    @Test
    void aParkedPollWithNothingToClaimAnswersEmptyWhenItsTimeRunsOut() {
        long start = System.nanoTime();
        Api.Response response = api.post("/blackboard/job", Map.of("workerId", worker, "waitMs", 400));
        assertThat(response.body()).isEmpty();
        assertThat(elapsedMs(start)).isBetween(350L, 5_000L);
        assertThat(waiters.parked()).isZero();
    }

    @Test
    void aParkedPollIsWokenWithinMillisecondsByAJobCreatedThroughTheApi() throws Exception {
        Future<Api.Response> parked = parkPoll(worker, 20_000);
        awaitParked(1);

        UUID job = createJob(echo, Map.of());
        long created = System.nanoTime();
        Api.Response response = parked.get(10, TimeUnit.SECONDS);

        assertThat(ids(response)).containsExactly(job);
        assertThat(elapsedMs(created)).as("delivery latency").isLessThan(1_000);
    }

    @Test
    void oneJobWithManyParkedPollsWakesOne() throws Exception {
        List<UUID> workers = new ArrayList<>();
        List<Future<Api.Response>> polls = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            UUID id = worker("w" + i, Map.of(), List.of(block("echo", "1.0.0")));
            workers.add(id);
            polls.add(parkPoll(id, 3_000));
        }
        awaitParked(10);
        long before = waiters.wakeups();

        UUID job = createJob(echo, Map.of());

        awaitTrue(() -> polls.stream().anyMatch(Future::isDone), "one poll answered");
        Thread.sleep(300);
        assertThat(waiters.wakeups() - before).isEqualTo(1);
        assertThat(polls.stream().filter(Future::isDone).count()).isEqualTo(1);
        Future<Api.Response> winner = polls.stream().filter(Future::isDone).findFirst().orElseThrow();
        assertThat(ids(winner.get())).containsExactly(job);
    }

    /**
     * A claim a ping releases wakes a parked poll once it commits: by the ping that lists other
     * jobs and by the idle ping alike.
     */
    @Test
    void aClaimAPingReleasesWakesAParkedPollOfAnotherWorker() throws Exception {
        UUID lost = createJob(echo, Map.of());
        UUID known = createJob(echo, Map.of());
        assertThat(claim(worker, 2)).containsExactlyInAnyOrder(lost, known);
        jdbc.sql("update job set polled_at = now() - interval '1 minute' where worker_id = :w")
                .param("w", worker).update();
        UUID other = worker("other", Map.of("concurrency", 5), List.of(block("echo", "1.0.0")));

        Future<Api.Response> first = parkPoll(other, 20_000);
        awaitParked(1);
        api.post("/workers/" + worker + "/ping", Map.of("activeJobIds", List.of(known)));
        assertThat(ids(first.get(10, TimeUnit.SECONDS))).as("woken by a ping listing jobs").containsExactly(lost);

        Future<Api.Response> second = parkPoll(other, 20_000);
        awaitParked(1);
        api.post("/workers/" + worker + "/ping", Map.of("activeJobIds", List.of()));
        assertThat(ids(second.get(10, TimeUnit.SECONDS))).as("woken by an idle ping").containsExactly(known);
    }

    @Test
    void aJobOnlyWakesPollsWhoseLabelsMatchItsSelector() throws Exception {
        UUID siteB = worker("b", Map.of("labels", Map.of("site", "b")), List.of(block("echo", "1.0.0")));
        UUID siteA = worker("a", Map.of("labels", Map.of("site", "a")), List.of(block("echo", "1.0.0")));
        Future<Api.Response> pollB = parkPoll(siteB, 3_000);
        awaitParked(1);
        Future<Api.Response> pollA = parkPoll(siteA, 20_000);
        awaitParked(2);

        UUID job = createJob(echo, Map.of("selector", Map.of("site", "a")));

        assertThat(ids(pollA.get(10, TimeUnit.SECONDS))).containsExactly(job);
        assertThat(pollB.isDone()).isFalse();
    }

    /** The replica that scheduled the job makes it due and tells the others, as a create does. */
    @Test
    void aParkedPollIsWokenWhenAJobScheduledThroughAnotherReplicaFallsDue() throws Exception {
        Api second = new Api(startSecondReplica());
        Future<Api.Response> parked = parkPoll(worker, 20_000);
        awaitParked(1);

        long created = System.nanoTime(); // before sending: the job is due 500 ms after its statement ran
        Api.Response response = second.post("/blackboard/jobs",
                Map.of("functionBlockId", echo, "type", "EXECUTE", "delayMs", 500));

        assertThat(response.status()).as(response.toString()).isEqualTo(201);
        assertThat(ids(parked.get(10, TimeUnit.SECONDS))).containsExactly(id(response.body()));
        assertThat(elapsedMs(created)).as("not before its time, and soon after it")
                .isGreaterThanOrEqualTo(400).isLessThan(2_500);
    }

    @Test
    void aParkedPollIsWokenByAJobCreatedThroughAnotherReplica() throws Exception {
        Api second = new Api(startSecondReplica());
        Future<Api.Response> parked = parkPoll(worker, 20_000);
        awaitParked(1);

        UUID job = createJobThrough(second);
        long created = System.nanoTime();

        assertThat(ids(parked.get(10, TimeUnit.SECONDS))).containsExactly(job);
        assertThat(elapsedMs(created)).as("delivery latency across replicas").isLessThan(2_000);
    }

    @Test
    void wakeUpsResumeAfterTheListenConnectionIsKilled() throws Exception {
        Api second = new Api(startSecondReplica());
        awaitTrue(() -> notifications.listenerBackendPid() != 0, "listening");
        int killed = notifications.listenerBackendPid();
        jdbc.sql("select pg_terminate_backend(:pid)").param("pid", killed).query(Boolean.class).single();
        awaitTrue(() -> notifications.listenerBackendPid() != 0 && notifications.listenerBackendPid() != killed,
                "listening again");

        Future<Api.Response> parked = parkPoll(worker, 20_000);
        awaitParked(1);
        UUID job = createJobThrough(second);

        assertThat(ids(parked.get(10, TimeUnit.SECONDS))).containsExactly(job);
    }

    @Test
    void parkedPollsHoldNoDatabaseConnection() throws Exception {
        int pool = dataSource.getMaximumPoolSize();
        for (int i = 0; i < pool * 2; i++) {
            parkPoll(worker("w" + i, Map.of(), List.of(block("echo", "1.0.0"))), 30_000);
        }
        awaitParked(pool * 2);

        // each poll re-checks once right after parking; then none may hold a connection (40 > the pool)
        awaitTrue(() -> dataSource.getHikariPoolMXBean().getActiveConnections() == 0, "no active connection");
        assertThat(waiters.parked()).isEqualTo(pool * 2);
        long start = System.nanoTime();
        assertThat(api.get("/workers/" + worker).status()).isEqualTo(200);
        assertThat(elapsedMs(start)).isLessThan(2_000);
    }

    @Test
    void onShutdownEveryParkedPollIsAnsweredAtOnceHoldingNothing() throws Exception {
        Future<Api.Response> parked = parkPoll(worker, 20_000);
        awaitParked(1);
        long start = System.nanoTime();
        try {
            waiters.stop();
            Api.Response response = parked.get(5, TimeUnit.SECONDS);
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).isEmpty();
            assertThat(elapsedMs(start)).isLessThan(2_000);
        } finally {
            waiters.start();
        }
    }

    @Test
    void aWaitingFeedReaderIsWokenWithinMillisecondsByAPush() throws Exception {
        UUID job = createJob(echo, Map.of());
        claim(worker, 1);
        Future<Api.Response> reader = waitForResults();

        push(job, worker, Map.of());
        long pushed = System.nanoTime();

        assertThat(ResultFeedTest.ids(reader.get(10, TimeUnit.SECONDS))).containsExactly(job);
        assertThat(elapsedMs(pushed)).as("delivery latency").isLessThan(1_000);
    }

    @Test
    void aWaitingFeedReaderIsWokenByAResultOnAnotherReplica() throws Exception {
        Api second = new Api(startSecondReplica());
        UUID job = createJob(echo, Map.of());
        Future<Api.Response> reader = waitForResults();

        assertThat(second.post("/blackboard/jobs/" + job + "/cancel", null).status()).isEqualTo(200);
        long cancelled = System.nanoTime();

        assertThat(ResultFeedTest.ids(reader.get(10, TimeUnit.SECONDS))).containsExactly(job);
        assertThat(elapsedMs(cancelled)).as("delivery latency across replicas").isLessThan(2_000);
    }

    /**
     * A result that lands while an older transaction is open is not readable until that one ends,
     * which wakes no one: the reader that found it pending re-checks soon, not after a minute.
     */
    @Test
    void aFeedReaderGetsAResultThatWaitedForAnOlderTransactionOnceItEnds() throws Exception {
        UUID job = createJob(echo, Map.of());
        Future<Api.Response> reader = waitForResults();
        try (var older = dataSource.getConnection()) {
            older.setAutoCommit(false);
            older.createStatement().execute("select pg_current_xact_id()");
            api.post("/blackboard/jobs/" + job + "/cancel", null);
            Thread.sleep(300);
            assertThat(reader).as("not readable while the older transaction is open").isNotDone();
            older.commit();
        }
        long ended = System.nanoTime();

        assertThat(ResultFeedTest.ids(reader.get(10, TimeUnit.SECONDS))).containsExactly(job);
        assertThat(elapsedMs(ended)).isLessThan(2_000);
    }

    @Test
    void onShutdownEveryWaitingFeedReaderIsAnsweredAtOnce() throws Exception {
        Future<Api.Response> reader = waitForResults();
        long start = System.nanoTime();
        try {
            waiters.stop();
            assertThat(ResultFeedTest.ids(reader.get(5, TimeUnit.SECONDS))).isEmpty();
            assertThat(elapsedMs(start)).isLessThan(2_000);
        } finally {
            waiters.start();
        }
    }

    /** A feed reader at the beginning, waiting up to 20 s, once it waits. */
    Future<Api.Response> waitForResults() {
        Future<Api.Response> reader = pool.submit(() -> api.get("/blackboard/results?waitMs=20000"));
        awaitTrue(() -> readers.waiting() == 1, "a waiting feed reader");
        return reader;
    }

    Future<Api.Response> parkPoll(UUID workerId, int waitMs) {
        return pool.submit(() -> api.post("/blackboard/job", Map.of("workerId", workerId, "waitMs", waitMs)));
    }

    void awaitParked(int count) {
        awaitTrue(() -> waiters.parked() >= count, count + " parked polls");
    }

    private UUID createJobThrough(Api replica) {
        Api.Response response = replica.post("/blackboard/jobs",
                Map.of("functionBlockId", echo, "type", "EXECUTE", "payload", Map.of()));
        assertThat(response.status()).as(response.toString()).isEqualTo(201);
        return id(response.body());
    }

    private int startSecondReplica() {
        if (secondReplica == null) {
            secondReplica = new SpringApplicationBuilder(BlackboardApplication.class).run(
                    "--server.port=0",
                    "--spring.datasource.url=" + dataSource.getJdbcUrl(),
                    "--spring.datasource.username=" + dataSource.getUsername(),
                    "--spring.datasource.password=" + (dataSource.getPassword() == null ? "" : dataSource.getPassword()),
                    "--blackboard.scheduling.enabled=false",
                    "--blackboard.job.poll-recheck=60000");
        }
        return secondReplica.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    static void awaitTrue(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    static long elapsedMs(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    static List<UUID> ids(Api.Response response) {
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return response.body().valueStream().map(BlackboardTest::id).toList();
    }
}
