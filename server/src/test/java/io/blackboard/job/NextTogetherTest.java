package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.platform.web.Caller;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Push + next round trips of different workers that arrive together share one transaction and
 * one commit, and each is still answered, or refused, on its own. Round trips of a holder
 * worker are held in flight behind a lock on its row, so the ones that arrive meanwhile queue
 * up, and go together once it is released.
 */
class NextTogetherTest extends BlackboardTest {

    private static final int WORKERS = 6;

    @Autowired
    DataSource dataSource;

    @Autowired
    NextService next;

    private UUID holder;
    private final List<UUID> workers = new ArrayList<>();
    private final Map<UUID, UUID> held = new HashMap<>();

    @BeforeEach
    void setUp() {
        workerServingEcho(Map.of());
        holder = worker("holder", Map.of(), List.of(block("echo", "1.0.0")));
        for (int i = 0; i < WORKERS; i++) {
            UUID w = worker("w" + i, Map.of("concurrency", 1), List.of(block("echo", "1.0.0")));
            workers.add(w);
            createJob(echo, Map.of());
            held.put(w, claim(w, 1).getFirst());
        }
        createJobs(echo, WORKERS);
    }

    @Test
    void roundTripsArrivingTogetherShareOneCommitEachAnsweredWithItsOwnPushAndClaim() throws Exception {
        List<Api.Response> answers = whileHeld(workers.stream().map(w -> (Supplier<Api.Response>) () -> next(w))
                .toList());

        Set<UUID> claimed = new HashSet<>();
        for (int i = 0; i < WORKERS; i++) {
            UUID w = workers.get(i);
            Api.Response answer = answers.get(i);
            assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
            assertThat(answer.at("/results/0/status").asInt()).isEqualTo(200);
            assertThat(answer.at("/results/0/job/id").asString()).isEqualTo(held.get(w).toString());
            assertThat(status(held.get(w))).isEqualTo("PUSHED");
            assertThat(answer.at("/jobs").size()).as("its freed slot, claimed at once").isEqualTo(1);
            UUID next = id(answer.at("/jobs/0"));
            assertThat(job(next).at("/workerId").asString()).as("claimed for the worker it was answered to")
                    .isEqualTo(w.toString());
            claimed.add(next);
        }
        assertThat(claimed).as("no job claimed twice").hasSize(WORKERS);
        // the queued round trips went together: the first held slot to free takes all it finds
        // queued, so one transaction (two if another slot's turn came between two of its takes),
        // never one per worker
        List<String> transactions = jdbc.sql("select distinct push_xid::text from job where id in (:ids)")
                .param("ids", held.values()).query(String.class).list();
        assertThat(transactions).hasSizeBetween(1, 2);
        assertThat(jdbc.sql("select count(*) from job_event where kind = 'PUSHED'").query(Long.class).single())
                .as("one PUSHED event per push").isEqualTo(WORKERS);
    }

    @Test
    void oneWorkersFaultInASharedTransactionIsRefusedAloneAndTheOthersLand() throws Exception {
        UUID notServed = registerBlocks(registerWorker("elsewhere"), List.of(block("backup", "1.0.0"))).getFirst();
        UUID unknown = UUID.randomUUID();
        UUID refused = workers.get(2);
        String refusedRow = row(held.get(refused));
        List<Supplier<Api.Response>> calls = new ArrayList<>();
        calls.add(() -> next(workers.get(0)));
        calls.add(() -> api.post("/blackboard/job/next", Map.of("workerId", unknown, "limit", 1)));
        calls.add(() -> api.post("/blackboard/job/next", Map.of("workerId", refused, "results",
                List.of(result(refused, held.get(refused))), "functionBlockIds", List.of(notServed))));
        calls.add(() -> next(workers.get(3)));

        List<Api.Response> answers = whileHeld(calls);

        assertProblem(answers.get(1), 404, unknown.toString());
        assertProblem(answers.get(2), 422, notServed.toString());
        assertThat(row(held.get(refused))).as("a request refused as a whole pushes nothing").isEqualTo(refusedRow);
        for (int i : List.of(0, 3)) {
            assertThat(answers.get(i).status()).as(answers.get(i).toString()).isEqualTo(200);
            assertThat(answers.get(i).at("/results/0/status").asInt()).isEqualTo(200);
            assertThat(answers.get(i).at("/jobs").size()).isEqualTo(1);
            assertThat(status(held.get(workers.get(i)))).isEqualTo("PUSHED");
        }
        assertThat(jdbc.sql("select count(*) from job_event where kind = 'PUSHED'").query(Long.class).single())
                .as("each landed push landed once").isEqualTo(2);
        assertThat(jdbc.sql("select count(*) from job where status = 'POLLED'").query(Long.class).single())
                .as("the two new claims, and the jobs the other workers (the refused one too) still hold")
                .isEqualTo(2 + (WORKERS - 2));
    }

    @Test
    void aRoundTripWhoseDeadlinePassedWhileQueuedIsRefusedAloneAndNothingIsDoneForIt() throws Exception {
        UUID late = workers.get(1);
        String lateRow = row(held.get(late));
        List<Supplier<Api.Response>> calls = new ArrayList<>();
        calls.add(() -> next(workers.get(0)));
        calls.add(() -> api.with(Caller.TIMEOUT_HEADER, "400").post("/blackboard/job/next",
                Map.of("workerId", late, "results", List.of(result(late, held.get(late))), "limit", 1)));
        calls.add(() -> next(workers.get(2)));

        List<Api.Response> answers = whileHeld(calls, Duration.ofMillis(800));

        assertProblem(answers.get(1), 503, "deadline");
        assertThat(row(held.get(late))).as("nothing pushed for a client that left").isEqualTo(lateRow);
        for (int i : List.of(0, 2)) {
            assertThat(answers.get(i).status()).as(answers.get(i).toString()).isEqualTo(200);
            assertThat(status(held.get(workers.get(i)))).isEqualTo("PUSHED");
        }
        assertThat(jdbc.sql("select count(*) from job where status = 'PENDING'").query(Long.class).single())
                .as("two of the free jobs claimed, none for the late one").isEqualTo(WORKERS - 2);
    }

    private Api.Response next(UUID w) {
        return api.post("/blackboard/job/next", Map.of("workerId", w, "results", List.of(result(w, held.get(w))),
                "limit", 1));
    }

    private static Map<String, Object> result(UUID w, UUID jobId) {
        return Map.of("jobId", jobId, "workerId", w, "attempt", 1, "status", "SUCCESS", "result", Map.of("ok", 1));
    }

    private List<Api.Response> whileHeld(List<Supplier<Api.Response>> calls) throws Exception {
        return whileHeld(calls, Duration.ZERO);
    }

    /**
     * The holder's round trips take every shared transaction's slot and wait on its row, locked
     * here; the calls queue behind them; after {@code more}, the row is released. Answers in the
     * order of the calls.
     */
    private List<Api.Response> whileHeld(List<Supplier<Api.Response>> calls, Duration more) throws Exception {
        List<Future<Api.Response>> holders = new ArrayList<>();
        List<Future<Api.Response>> answers = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
                Connection lock = dataSource.getConnection()) {
            lock.setAutoCommit(false);
            try (PreparedStatement statement = lock.prepareStatement("select 1 from worker where id = ? for update")) {
                statement.setObject(1, holder);
                statement.execute();
            }
            try {
                for (int i = 0; i < NextService.BATCHES_IN_FLIGHT; i++) {
                    holders.add(threads.submit(() -> api.post("/blackboard/job/next",
                            Map.of("workerId", holder, "limit", 0))));
                }
                await(() -> waitingOnLocks("with polled as") == NextService.BATCHES_IN_FLIGHT);
                for (Supplier<Api.Response> call : calls) {
                    answers.add(threads.submit(call::get));
                }
                await(() -> next.queued() == calls.size());
                Thread.sleep(more.toMillis());
            } finally {
                lock.rollback();
                lock.setAutoCommit(true);
            }
            for (Future<Api.Response> answer : holders) {
                assertThat(answer.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
            }
            List<Api.Response> done = new ArrayList<>();
            for (Future<Api.Response> answer : answers) {
                done.add(answer.get(30, TimeUnit.SECONDS));
            }
            return done;
        }
    }
}
