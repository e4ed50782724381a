package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Single creates that arrive together go as one statement and one commit, and each is still
 * answered, or refused, on its own. Two inserts are held in flight behind a table lock, so
 * the creates that arrive meanwhile queue up, and go together once it is released.
 */
class CoalescedCreateTest extends BlackboardTest {

    @Autowired
    DataSource dataSource;

    @Autowired
    JobService jobs;

    @BeforeEach
    void setUp() {
        workerServingEcho(Map.of());
    }

    @Test
    void createsArrivingWhileInsertsRunGoAsOneStatementEachAnsweredWithItsOwnJob() throws Exception {
        List<Api.Response> answers = createWhileInsertsAreHeld(echo, 10);

        List<UUID> ids = new ArrayList<>();
        for (int n = 0; n < answers.size(); n++) {
            Api.Response answer = answers.get(n);
            assertThat(answer.status()).as(answer.toString()).isEqualTo(201);
            assertThat(answer.at("/payload/n").asInt()).isEqualTo(n);
            UUID id = UUID.fromString(answer.at("/id").asString());
            assertThat(job(id).at("/payload/n").asInt()).as("the job stored under the id answered").isEqualTo(n);
            ids.add(id);
        }
        assertThat(ids).doesNotHaveDuplicates();
        // the ten queued creates went together: the two held inserts free their slots at once
        // and each slot's next statement takes what it finds queued, so one or two statements
        // (the creates of one share their transaction's time), never one per create
        List<Long> queuedTogether = jdbc.sql("""
                select count(*) from job where (payload ->> 'n')::int >= 2 group by created_at
                """).query(Long.class).list();
        assertThat(queuedTogether).hasSizeBetween(1, 2);
        assertThat(queuedTogether.stream().mapToLong(Long::longValue).sum()).isEqualTo(10);
        List<UUID> all = jdbc.sql("select id from job").query(UUID.class).list();
        assertThat(all).hasSize(12);
        for (UUID id : all) {
            assertThat(jobs.events(id, JobStore.FIRST_EVENT, 10)).extracting(JobEvent::kind)
                    .as("the CREATED event of " + id).containsExactly(EventKind.CREATED);
        }
    }

    @Test
    void aCreateThatFailsInTheSharedStatementIsRefusedAloneAndTheOthersAreCreated() throws Exception {
        UUID doomed = registerBlocks(worker, List.of(block("doomed", "1.0.0"))).getFirst();
        createJob(doomed, Map.of()); // the server now keeps doomed's contract, and will not look again
        jdbc.sql("delete from job_event").update();
        jdbc.sql("delete from job").update();
        jdbc.sql("delete from worker_function_block where function_block_id = ?").param(doomed).update();
        jdbc.sql("delete from function_block where id = ?").param(doomed).update();

        List<UUID> blocks = new ArrayList<>(List.of(echo, echo, echo, echo, echo, echo));
        blocks.set(4, doomed);
        List<Api.Response> answers = createWhileInsertsAreHeld(blocks);

        for (int n = 0; n < answers.size(); n++) {
            if (n == 4) {
                assertProblem(answers.get(n), 422, doomed.toString());
            } else {
                assertThat(answers.get(n).status()).as(answers.get(n).toString()).isEqualTo(201);
            }
        }
        assertThat(count("job")).isEqualTo(5);
    }

    private List<Api.Response> createWhileInsertsAreHeld(UUID block, int queued) throws Exception {
        List<UUID> blocks = new ArrayList<>();
        for (int i = 0; i < queued + 2; i++) {
            blocks.add(block);
        }
        return createWhileInsertsAreHeld(blocks);
    }

    /**
     * The first two creates run, one after the other, and wait on a lock; the rest queue behind
     * them; then it is released.
     */
    private List<Api.Response> createWhileInsertsAreHeld(List<UUID> blocks) throws Exception {
        List<Future<Api.Response>> answers = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
                Connection lock = dataSource.getConnection()) {
            lock.setAutoCommit(false);
            try (Statement statement = lock.createStatement()) {
                statement.execute("lock table job in share row exclusive mode");
            }
            try {
                for (int n = 0; n < blocks.size(); n++) {
                    Map<String, Object> body = new HashMap<>(Map.of("functionBlockId", blocks.get(n),
                            "type", "EXECUTE", "payload", Map.of("n", n)));
                    answers.add(threads.submit(() -> api.post("/blackboard/jobs", body)));
                    if (n < 2) {
                        // one at a time: two creates arriving together may go as one batch
                        int held = n + 1;
                        await(() -> waitingOnLocks("insert into job ") == held);
                    }
                }
                await(() -> jobs.createsQueued() == blocks.size() - 2);
            } finally {
                lock.rollback();
                lock.setAutoCommit(true);
            }
            List<Api.Response> done = new ArrayList<>();
            for (Future<Api.Response> answer : answers) {
                done.add(answer.get(30, TimeUnit.SECONDS));
            }
            return done;
        }
    }
}
