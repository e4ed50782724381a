package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.blackboard.Api;
import io.blackboard.RowLock;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/**
 * Issue 27, point 2: a poll, push or create whose client can no longer receive the answer does no
 * work. The client's deadline ({@code Blackboard-Timeout-Ms}) is honoured, a closed connection is
 * noticed before a claim, and claims whose answer cannot be delivered go back to PENDING at once.
 * The re-check is a minute and the orphan grace an hour: nothing here is undone by them; a
 * request waits up to 15 s for a pooled connection, so one held up while the test holds the pool
 * is refused for its deadline, never for the pool's timeout.
 */
@TestPropertySource(properties = {"blackboard.job.poll-recheck=60000", "blackboard.job.orphan-grace=3600000",
    "blackboard.job.answer-margin=500", "spring.datasource.hikari.connection-timeout=15000"})
class RequestDeadlineTest extends BlackboardTest {

    static final String TIMEOUT = "Blackboard-Timeout-Ms";
    /** A refusal at the first database connection, not at arrival nor after the worker's row. */
    static final String WAITED = "waited for a database connection";

    @Autowired
    PollWaiters waiters;

    @Autowired
    MeterRegistry registry;

    @Autowired
    DataSource dataSource;

    @BeforeEach
    void setUp() {
        workerServingEcho(Map.of("concurrency", 5));
    }

    @Test
    void aPollWhoseDeadlineLeavesNoTimeClaimsNothing() {
        UUID job = createJob(echo, Map.of());
        double refused = abandoned("deadline");
        Api.Response response = api.with(TIMEOUT, "0").post("/blackboard/job", Map.of("workerId", worker, "limit", 1));
        assertProblem(response, 503, "deadline");
        assertThat(response.headers().firstValue("Retry-After")).contains("1");
        assertThat(status(job)).isEqualTo("PENDING");
        assertThat(abandoned("deadline") - refused).isEqualTo(1);
    }

    @Test
    void aPollStopsWaitingBeforeItsClientsDeadlineAndClaimsNothingAfterIt() {
        long start = System.nanoTime();
        // the client waits 1.5 s, asks for 20: the poll answers [] a margin (0.5 s) before the client gives up
        Api.Response response = api.with(TIMEOUT, "1500")
                .post("/blackboard/job", Map.of("workerId", worker, "limit", 1, "waitMs", 20_000));
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        assertThat(response.body().size()).isZero();
        assertThat(elapsedMs).isBetween(800L, 1500L);
        assertThat(waiters.parked()).isZero();
        UUID job = createJob(echo, Map.of());
        assertThat(status(job)).isEqualTo("PENDING"); // nobody is still waiting to claim it
    }

    @Test
    void aPollHeldUpPastWaitMsAndTheMarginClaimsNothing() throws Exception {
        UUID job = createJob(echo, Map.of());
        CompletableFuture<Api.Response> poll;
        try (RowLock lock = RowLock.hold(dataSource, "worker", worker)) {
            // no header: the client is taken to wait waitMs (0) plus the margin (0.5 s); the worker's row takes 1 s
            poll = CompletableFuture.supplyAsync(() -> poll(worker, 1), Executors.newVirtualThreadPerTaskExecutor());
            awaitTrue(() -> jdbc.sql("select count(*) from pg_stat_activity where wait_event_type = 'Lock'")
                    .query(Integer.class).single() == 1, "the poll waits for the worker's row");
            Thread.sleep(1000);
        }
        assertProblem(poll.get(10, TimeUnit.SECONDS), 503, "deadline");
        assertThat(status(job)).isEqualTo("PENDING");
    }

    @Test
    void aParkedPollWhoseClientClosedItsConnectionClaimsNothingWhenAJobArrives() throws Exception {
        double disconnected = abandoned("disconnected");
        try (Socket socket = rawPoll(Map.of("workerId", worker, "limit", 1, "waitMs", 20_000))) {
            awaitTrue(() -> waiters.parked() == 1, "the poll parked");
        }
        Thread.sleep(200); // the FIN reaches the server
        UUID job = createJob(echo, Map.of());
        awaitTrue(() -> waiters.parked() == 0, "the woken poll ended");
        assertThat(status(job)).isEqualTo("PENDING");
        assertThat(abandoned("disconnected") - disconnected).isEqualTo(1);
        assertThat(claim(worker, 1)).containsExactly(job); // a poll that is listening gets it
    }

    @Test
    void claimsMadeForAClientThatLeftMeanwhileAreReleasedAtOnce() throws Exception {
        UUID job = createJob(echo, Map.of());
        double undelivered = registry.get("blackboard.jobs.undelivered").counter().count();
        try (RowLock lock = RowLock.hold(dataSource, "worker", worker)) {
            // the poll finds its client there, then waits for the worker's row; meanwhile the client leaves
            try (Socket socket = rawPoll(Map.of("workerId", worker, "limit", 1, "waitMs", 10_000))) {
                awaitTrue(() -> jdbc.sql("select count(*) from pg_stat_activity where wait_event_type = 'Lock'")
                        .query(Integer.class).single() == 1, "the poll waits for the worker's row");
            }
            Thread.sleep(300); // the FIN reaches the server
        }
        awaitTrue(() -> registry.get("blackboard.jobs.undelivered").counter().count() - undelivered == 1,
                "the claim was released");
        assertThat(status(job)).isEqualTo("PENDING");
        assertThat(jdbc.sql("select attempt - releases from job where id = :id").param("id", job)
                .query(Integer.class).single()).as("attempts spent").isZero();
        List<String> events = jdbc.sql("select kind || ' ' || actor from job_event where job_id = :id order by id")
                .param("id", job).query(String.class).list();
        assertThat(events).containsSubsequence("CLAIMED worker", "RELEASED server");
        assertThat(claim(worker, 1)).containsExactly(job);
    }

    /** The OJS binding's fetch as a native poll: its claims go back at once when its client has left. */
    @Test
    void anOjsFetchForAClientThatLeftMeanwhileIsReleasedAtOnce() throws Exception {
        Api.Response enqueued = api.as("test-engine").post("/ojs/v1/jobs",
                Map.of("type", "ojs.left", "args", List.of(1), "options", Map.of("queue", "left")));
        assertThat(enqueued.status()).as(enqueued.toString()).isEqualTo(201);
        UUID job = UUID.fromString(enqueued.at("/job/id").asString());
        Api.Response first = api.as("test-ojs-worker").post("/ojs/v1/workers/fetch",
                Map.of("queues", List.of("nothing-here"), "worker_id", "left-worker"));
        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        UUID ojsWorker = jdbc.sql("select id from worker where ojs_id = 'left-worker'").query(UUID.class).single();
        double undelivered = registry.get("blackboard.jobs.undelivered").counter().count();
        try (RowLock lock = RowLock.hold(dataSource, "worker", ojsWorker)) {
            // the fetch finds its client there, then waits for its worker's row; meanwhile the client leaves
            try (Socket socket = raw("/ojs/v1/workers/fetch", "test-ojs-worker",
                    Map.of("queues", List.of("left"), "worker_id", "left-worker"))) {
                awaitTrue(() -> jdbc.sql("select count(*) from pg_stat_activity where wait_event_type = 'Lock'")
                        .query(Integer.class).single() == 1, "the fetch waits for its worker's row");
            }
            Thread.sleep(300); // the FIN reaches the server
        }
        awaitTrue(() -> registry.get("blackboard.jobs.undelivered").counter().count() - undelivered == 1,
                "the claim was released");
        assertThat(status(job)).isEqualTo("PENDING");
        List<String> events = jdbc.sql("select kind || ' ' || actor from job_event where job_id = :id order by id")
                .param("id", job).query(String.class).list();
        assertThat(events).containsSubsequence("CLAIMED worker", "RELEASED server");
        Api.Response again = api.as("test-ojs-worker").post("/ojs/v1/workers/fetch",
                Map.of("queues", List.of("left"), "worker_id", "left-worker"));
        assertThat(again.at("/jobs/0/id").asString()).as(again.toString()).isEqualTo(job.toString());
    }

    @Test
    void aPushPastItsDeadlineLandsNothing() {
        UUID job = claimedJob(echo);
        Api.Response response = api.with(TIMEOUT, "0").post("/blackboard/job/result",
                Map.of("jobId", job, "workerId", worker, "attempt", 1, "status", "SUCCESS"));
        assertProblem(response, 503, "deadline");
        assertThat(status(job)).isEqualTo("POLLED");
        Api.Response batch = api.with(TIMEOUT, "0").post("/blackboard/job/results",
                List.of(Map.of("jobId", job, "workerId", worker, "attempt", 1, "status", "SUCCESS")));
        assertProblem(batch, 503, "deadline");
        assertThat(status(job)).isEqualTo("POLLED");
    }

    @Test
    void aPushAndNextPastItsDeadlinePushesNothingAndClaimsNothing() {
        UUID held = claimedJob(echo);
        UUID next = createJob(echo, Map.of());
        Api.Response response = api.with(TIMEOUT, "0").post("/blackboard/job/next", Map.of("workerId", worker,
                "results", List.of(Map.of("jobId", held, "workerId", worker, "attempt", 1, "status", "SUCCESS"))));
        assertProblem(response, 503, "deadline");
        assertThat(status(held)).isEqualTo("POLLED");
        assertThat(status(next)).isEqualTo("PENDING");
    }

    /**
     * The pool exhausted: an OJS fetch, a push, a batch push, a push + next, a keyed create and one
     * that goes in a shared insert (no key) wait for their first connection past the deadline their clients sent (1.5 s of the 3 s the pool is
     * held), and are refused as it is handed out, having done nothing.
     */
    @Test
    void requestsWhoseDeadlinePassesWhileTheyWaitForAConnectionDoNothing() throws Exception {
        UUID job = claimedJob(echo);
        UUID next = createJob(echo, Map.of());
        Api.Response enqueued = api.as("test-engine").post("/ojs/v1/jobs",
                Map.of("type", "ojs.late", "args", List.of(1), "options", Map.of("queue", "late")));
        assertThat(enqueued.status()).as(enqueued.toString()).isEqualTo(201);
        UUID ojsJob = UUID.fromString(enqueued.at("/job/id").asString());
        Map<String, Object> push = Map.of("jobId", job, "workerId", worker, "attempt", 1, "status", "SUCCESS");
        double refused = abandoned("deadline");
        List<Api.Response> answers = whileThePoolIsExhausted(
                () -> api.as("test-ojs-worker").with(TIMEOUT, "1500").post("/ojs/v1/workers/fetch",
                        Map.of("queues", List.of("late"), "worker_id", "late-worker")),
                () -> api.with(TIMEOUT, "1500").post("/blackboard/job/result", push),
                () -> api.with(TIMEOUT, "1500").post("/blackboard/job/results", List.of(push)),
                () -> api.with(TIMEOUT, "1500").post("/blackboard/job/next",
                        Map.of("workerId", worker, "results", List.of(push))),
                () -> api.with(TIMEOUT, "1500").post("/blackboard/jobs", Map.of("functionBlockId", echo,
                        "type", "EXECUTE", "payload", Map.of(), "idempotencyKey", "late")),
                () -> api.with(TIMEOUT, "1500").post("/blackboard/jobs", Map.of("functionBlockId", echo,
                        "type", "EXECUTE", "payload", Map.of("shared", "insert"))));
        Api.Response fetched = answers.getFirst();
        assertThat(fetched.status()).as(fetched.toString()).isEqualTo(503);
        assertThat(fetched.at("/error/code").asString()).isEqualTo("backend_error");
        assertThat(fetched.at("/error/message").asString()).contains(WAITED);
        for (Api.Response answer : answers.subList(1, answers.size())) {
            assertProblem(answer, 503, WAITED);
        }
        answers.forEach(answer -> assertThat(answer.headers().firstValue("Retry-After")).contains("1"));
        assertThat(status(job)).isEqualTo("POLLED");
        assertThat(status(next)).isEqualTo("PENDING");
        assertThat(status(ojsJob)).isEqualTo("PENDING");
        assertThat(count("job")).as("nothing created").isEqualTo(3);
        assertThat(abandoned("deadline") - refused).isEqualTo(6);
    }

    @Test
    void requestsWhoseDeadlineOutlastsTheWaitForAConnectionAreServed() throws Exception {
        UUID job = claimedJob(echo);
        Map<String, Object> push = Map.of("jobId", job, "workerId", worker, "attempt", 1, "status", "SUCCESS");
        List<Api.Response> answers = whileThePoolIsExhausted(
                () -> api.with(TIMEOUT, "20000").post("/blackboard/job/result", push),
                () -> api.with(TIMEOUT, "20000").post("/blackboard/jobs", Map.of("functionBlockId", echo,
                        "type", "EXECUTE", "payload", Map.of(), "idempotencyKey", "in-time")),
                () -> api.with(TIMEOUT, "20000").post("/blackboard/jobs", Map.of("functionBlockId", echo,
                        "type", "EXECUTE", "payload", Map.of("shared", "insert"))));
        assertThat(answers.get(0).status()).as(answers.get(0).toString()).isEqualTo(200);
        assertThat(answers.get(1).status()).as(answers.get(1).toString()).isEqualTo(201);
        assertThat(answers.get(2).status()).as(answers.get(2).toString()).isEqualTo(201);
        assertThat(status(job)).isEqualTo("PUSHED");
    }

    @Test
    void aCreatePastItsDeadlineCreatesNothing() {
        Api.Response response = api.with(TIMEOUT, "0").post("/blackboard/jobs",
                Map.of("functionBlockId", echo, "type", "EXECUTE", "payload", Map.of()));
        assertProblem(response, 503, "deadline");
        assertThat(count("job")).isZero();
    }

    @Test
    void anOjsFetchOrEnqueuePastItsDeadlineDoesNothing() {
        Api.Response enqueued = api.as("test-engine").post("/ojs/v1/jobs",
                Map.of("type", "ojs.deadline", "args", List.of(1), "options", Map.of("queue", "late")));
        assertThat(enqueued.status()).as(enqueued.toString()).isEqualTo(201);
        String job = enqueued.at("/job/id").asString();

        Api.Response fetched = api.as("test-ojs-worker").with(TIMEOUT, "0").post("/ojs/v1/workers/fetch",
                Map.of("queues", List.of("late"), "worker_id", "late-worker"));
        assertThat(fetched.status()).as(fetched.toString()).isEqualTo(503);
        assertThat(fetched.at("/error/code").asString()).isEqualTo("backend_error");
        assertThat(fetched.headers().firstValue("Retry-After")).isPresent();
        assertThat(status(UUID.fromString(job))).as("not claimed").isEqualTo("PENDING");

        Api.Response late = api.as("test-engine").with(TIMEOUT, "0").post("/ojs/v1/jobs",
                Map.of("type", "ojs.deadline", "args", List.of(2), "options", Map.of("queue", "late")));
        assertThat(late.status()).as(late.toString()).isEqualTo(503);
        assertThat(count("job")).as("only the first job").isEqualTo(1);
    }

    @Test
    void aBudgetWithinItIsServedAsUsual() {
        UUID job = createJob(echo, Map.of());
        Api.Response response = api.with(TIMEOUT, "30000")
                .post("/blackboard/job", Map.of("workerId", worker, "limit", 1));
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        assertThat(id(response.body().get(0))).isEqualTo(job);
    }

    @Test
    void aBadTimeoutHeaderIsABadRequest() {
        for (String bad : List.of("soon", "-1", "1.5", "1e3", "", "86400001", "99999999999999999999")) {
            Api.Response response = api.with(TIMEOUT, bad).post("/blackboard/job", Map.of("workerId", worker));
            assertProblem(response, 400, TIMEOUT);
        }
        assertThat(api.with(TIMEOUT, " 250 ").post("/blackboard/job", Map.of("workerId", worker)).status())
                .isEqualTo(200);
    }

    /**
     * Sends the requests while the test holds every connection of the pool, and hands the
     * connections back 3 s after all of them wait for one; their answers, in order.
     */
    @SafeVarargs
    private List<Api.Response> whileThePoolIsExhausted(Supplier<Api.Response>... requests) throws Exception {
        HikariDataSource pool = dataSource.unwrap(HikariDataSource.class);
        List<Connection> held = new ArrayList<>();
        List<CompletableFuture<Api.Response>> answers = new ArrayList<>();
        try (ExecutorService senders = Executors.newVirtualThreadPerTaskExecutor()) {
            try {
                while (held.size() < pool.getMaximumPoolSize()) {
                    held.add(pool.getConnection());
                }
                for (Supplier<Api.Response> request : requests) {
                    answers.add(CompletableFuture.supplyAsync(request, senders));
                }
                awaitTrue(() -> pool.getHikariPoolMXBean().getThreadsAwaitingConnection() >= requests.length,
                        "the requests wait for a connection");
                Thread.sleep(3000);
            } finally {
                for (Connection connection : held) {
                    connection.close();
                }
            }
            List<Api.Response> answered = new ArrayList<>();
            for (CompletableFuture<Api.Response> answer : answers) {
                answered.add(answer.get(10, TimeUnit.SECONDS));
            }
            return answered;
        }
    }

    private double abandoned(String reason) {
        return registry.get("blackboard.http.requests.abandoned").tag("reason", reason).counter().count();
    }

    /** A poll sent on a socket of its own, which the test may close while the server works on it. */
    private Socket rawPoll(Map<String, Object> body) throws IOException {
        return raw("/blackboard/job", Api.ALL_ROLES, body);
    }

    /** A request sent on a socket of its own, its answer never read: closing the socket is the client leaving. */
    private Socket raw(String path, String token, Map<String, Object> body) throws IOException {
        byte[] json = Api.json(body).getBytes(StandardCharsets.UTF_8);
        Socket socket = new Socket("localhost", port);
        OutputStream out = socket.getOutputStream();
        out.write(("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Authorization: Bearer " + token + "\r\nContent-Length: " + json.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(json);
        out.flush();
        return socket;
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("timed out waiting until " + what).isLessThan(until);
            Thread.sleep(20);
        }
    }
}
