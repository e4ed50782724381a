package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.platform.web.Caller;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Polls of different workers that arrive together claim in one transaction and one commit, as
 * push + next round trips do (NextTogetherTest), and each is still answered, or refused, on its
 * own. A holder worker's polls are held in flight behind a lock on its row, so the polls that
 * arrive meanwhile queue up, and go together once it is released.
 */
class PollTogetherTest extends BlackboardTest {

    private static final int WORKERS = 6;
    /**
     * The deadline of every poll here that is not meant to be late: without one a poll's is the
     * answer margin (2 s), which the held slots may outlast on a slow machine.
     */
    private static final String PATIENT = "60000";

    @Autowired
    DataSource dataSource;

    @Autowired
    ClaimService claims;

    private UUID holder;
    private final List<UUID> workers = new ArrayList<>();

    @BeforeEach
    void setUp() {
        workerServingEcho(Map.of());
        holder = worker("holder", Map.of(), List.of(block("idle", "1.0.0")));
        for (int i = 0; i < WORKERS; i++) {
            workers.add(worker("w" + i, Map.of("concurrency", 1), List.of(block("echo", "1.0.0"))));
        }
        createJobs(echo, WORKERS);
    }

    @Test
    void pollsArrivingTogetherClaimInOneCommitEachAnsweredWithItsOwnJob() throws Exception {
        List<Api.Response> answers = whileHeld(workers.stream().map(w -> (Supplier<Api.Response>) () -> patient(w, 1))
                .toList());

        Set<UUID> claimed = new HashSet<>();
        for (int i = 0; i < WORKERS; i++) {
            Api.Response answer = answers.get(i);
            assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
            assertThat(answer.body().size()).as("one job each").isEqualTo(1);
            UUID job = id(answer.body().get(0));
            assertThat(job(job).at("/workerId").asString()).as("claimed for the worker it was answered to")
                    .isEqualTo(workers.get(i).toString());
            claimed.add(job);
        }
        assertThat(claimed).as("no job claimed twice").hasSize(WORKERS);
        // the queued polls went together: the first held slot to free takes all it finds queued,
        // so one transaction (two if another slot's turn came between two of its takes), never
        // one per worker; an event's xmin is the transaction that wrote it
        List<String> transactions = jdbc.sql("select distinct xmin::text from job_event where kind = 'CLAIMED'")
                .query(String.class).list();
        assertThat(transactions).hasSizeBetween(1, 2);
        assertThat(jdbc.sql("select count(*) from job_event where kind = 'CLAIMED'").query(Long.class).single())
                .as("one CLAIMED event per claim").isEqualTo(WORKERS);
    }

    @Test
    void onePollsFaultInASharedTransactionIsRefusedAloneAndTheOthersClaim() throws Exception {
        UUID notServed = registerBlocks(registerWorker("elsewhere"), List.of(block("backup", "1.0.0"))).getFirst();
        UUID unknown = UUID.randomUUID();
        List<Supplier<Api.Response>> calls = new ArrayList<>();
        calls.add(() -> patient(workers.get(0), 1));
        calls.add(() -> patient(unknown, 1));
        calls.add(() -> api.with(Caller.TIMEOUT_HEADER, PATIENT).post("/blackboard/job",
                Map.of("workerId", workers.get(2), "limit", 1, "functionBlockIds", List.of(notServed))));
        calls.add(() -> patient(workers.get(3), 1));

        List<Api.Response> answers = whileHeld(calls);

        assertProblem(answers.get(1), 404, unknown.toString());
        assertProblem(answers.get(2), 422, notServed.toString());
        for (int i : List.of(0, 3)) {
            assertThat(answers.get(i).status()).as(answers.get(i).toString()).isEqualTo(200);
            assertThat(answers.get(i).body().size()).isEqualTo(1);
        }
        assertThat(jdbc.sql("select count(*) from job where status = 'POLLED'").query(Long.class).single())
                .as("the two answered claims, none for the refused polls").isEqualTo(2);
        assertThat(jdbc.sql("select count(*) from job_event where kind = 'CLAIMED'").query(Long.class).single())
                .as("each claim recorded once, none undone and redone twice").isEqualTo(2);
    }

    @Test
    void aPollWhoseDeadlinePassedWhileQueuedIsRefusedAloneAndClaimsNothing() throws Exception {
        UUID late = workers.get(1);
        List<Supplier<Api.Response>> calls = new ArrayList<>();
        calls.add(() -> patient(workers.get(0), 1));
        calls.add(() -> api.with(Caller.TIMEOUT_HEADER, "400").post("/blackboard/job",
                Map.of("workerId", late, "limit", 1)));
        calls.add(() -> patient(workers.get(2), 1));

        List<Api.Response> answers = whileHeld(calls, Duration.ofMillis(800));

        assertProblem(answers.get(1), 503, "deadline");
        for (int i : List.of(0, 2)) {
            assertThat(answers.get(i).status()).as(answers.get(i).toString()).isEqualTo(200);
            assertThat(answers.get(i).body().size()).isEqualTo(1);
        }
        assertThat(jdbc.sql("select count(*) from job where worker_id = :w").param("w", late).query(Long.class)
                .single()).as("nothing claimed for a client that left").isZero();
        assertThat(jdbc.sql("select count(*) from job where status = 'PENDING'").query(Long.class).single())
                .isEqualTo(WORKERS - 2);
    }

    /**
     * A worker's row held by another transaction (an unregister taking its jobs back, an
     * operator's SQL) holds up that worker's poll alone: the shared transaction skips the row,
     * the others claim while it is still held, and the busy worker's poll runs by itself, waits
     * for the row, and claims once it is free.
     */
    @Test
    void aPollWhoseWorkersRowIsHeldElsewhereWaitsAloneWhileTheOthersClaim() throws Exception {
        UUID busy = workers.get(1);
        List<Supplier<Api.Response>> calls = List.of(() -> patient(workers.get(0), 1), () -> patient(busy, 1),
                () -> patient(workers.get(2), 1));

        BusyAnswers run = whileAlsoHeld(dataSource, busy, 1, calls, this::whileHeld);

        assertThat(run.othersWhileHeld()).as("the others answered while the busy worker's row was held").isTrue();
        for (Api.Response answer : run.answers()) {
            assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
            assertThat(answer.body().size()).as("one job each").isEqualTo(1);
        }
        assertThat(jdbc.sql("select count(*) from job where worker_id = :w and status = 'POLLED'").param("w", busy)
                .query(Long.class).single()).as("the busy worker's claim, made once its row was free").isEqualTo(1);
        assertThat(jdbc.sql("select count(*) from job_event where kind = 'CLAIMED'").query(Long.class).single())
                .as("one CLAIMED event per claim").isEqualTo(3);
    }

    /**
     * The queued claims of workers asking for the same blocks go in one statement, but a worker's
     * second poll in the same transaction claims after its first (in a statement of its own), so
     * the two together stay within its concurrency.
     */
    @Test
    void aWorkersTwoPollsInOneTransactionTogetherStayWithinItsConcurrency() throws Exception {
        UUID twice = worker("twice", Map.of("concurrency", 2), List.of(block("echo", "1.0.0")));
        createJob(echo, Map.of());
        assertThat(claim(twice, 1)).hasSize(1);
        long eventsBefore = jdbc.sql("select max(id) from job_event").query(Long.class).single();
        List<Supplier<Api.Response>> calls = new ArrayList<>();
        calls.add(() -> patient(twice, 2));
        calls.add(() -> patient(workers.get(0), 1));
        calls.add(() -> patient(twice, 2));
        calls.add(() -> patient(workers.get(1), 1));

        List<Api.Response> answers = whileHeld(calls);

        answers.forEach(answer -> assertThat(answer.status()).as(answer.toString()).isEqualTo(200));
        assertThat(answers.get(0).body().size() + answers.get(2).body().size()).as("one slot was free")
                .isEqualTo(1);
        assertThat(jdbc.sql("select count(*) from job where worker_id = :w and status = 'POLLED'").param("w", twice)
                .query(Long.class).single()).isEqualTo(2);
        for (int i : List.of(1, 3)) {
            assertThat(answers.get(i).body().size()).as("the others' claims").isEqualTo(1);
        }
        assertThat(jdbc.sql("select count(distinct xmin::text) from job_event where kind = 'CLAIMED' and id > :before")
                .param("before", eventsBefore).query(Long.class).single())
                .as("the four polls' claims in one or two shared transactions").isBetween(1L, 2L);
    }

    private List<Api.Response> whileHeld(List<Supplier<Api.Response>> calls) throws Exception {
        return whileHeld(calls, Duration.ZERO);
    }

    /**
     * The holder's requests take every shared transaction's slot and wait on its row; the calls
     * queue behind them; after {@code more}, the row is released. Answers in the order of the calls.
     */
    private List<Api.Response> whileHeld(List<Supplier<Api.Response>> calls, Duration more) throws Exception {
        return whileHeld(dataSource, holder, () -> patient(holder, 1), claims::queued, calls, more);
    }

    /** A poll of {@code limit} jobs with a deadline that held slots cannot outlast. */
    private Api.Response patient(UUID w, int limit) {
        return api.with(Caller.TIMEOUT_HEADER, PATIENT).post("/blackboard/job", Map.of("workerId", w, "limit", limit));
    }
}
