package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;

class ResultFeedTest extends BlackboardTest {

    @Autowired
    TransactionTemplate tx;

    @Autowired
    PushService pushes;

    @Autowired
    PushedJobReaper reaper;

    @Autowired
    JobProperties properties;

    @Autowired
    DataSource dataSource;

    @BeforeEach
    void setUp() {
        workerServingEcho(Map.of("concurrency", 100));
    }

    @Test
    void resultsComeInPushOrderAndTheCursorReadsOn() {
        List<UUID> jobs = createJobs(echo, 5);
        claim(worker, 5);
        List<UUID> pushOrder = List.of(jobs.get(3), jobs.get(0), jobs.get(4), jobs.get(1), jobs.get(2));
        pushOrder.forEach(id -> push(id, worker, Map.of("result", Map.of("id", id.toString()))));

        Api.Response first = api.get("/blackboard/results?limit=3");
        Api.Response rest = api.get("/blackboard/results?limit=3&after=" + first.at("/next").asString());
        Api.Response end = api.get("/blackboard/results?after=" + rest.at("/next").asString());

        List<UUID> read = new ArrayList<>(ids(first));
        read.addAll(ids(rest));
        assertThat(read).containsExactlyElementsOf(pushOrder);
        assertThat(first.at("/results/0/result/id").asString()).isEqualTo(jobs.get(3).toString());
        assertThat(ids(end)).isEmpty();
        assertThat(end.at("/next").asString()).isEqualTo(rest.at("/next").asString());
    }

    @Test
    void cancellationsAndServerSideFailuresAreResultsToo() {
        UUID cancelled = createJob(echo, Map.of());
        api.post("/blackboard/jobs/" + cancelled + "/cancel", null);

        assertThat(ids(api.get("/blackboard/results"))).containsExactly(cancelled);
    }

    @Test
    void aConsumerFollowingTheCursorNeverMissesAPushThatCommitsLate() throws Exception {
        List<UUID> jobs = createJobs(echo, 2);
        claim(worker, 2);
        UUID late = jobs.get(0);
        UUID early = jobs.get(1);
        CountDownLatch pushedLate = new CountDownLatch(1);
        CountDownLatch commitLate = new CountDownLatch(1);

        List<UUID> consumed = new ArrayList<>();
        String cursor = "0-0";
        try (var pool = Executors.newSingleThreadExecutor()) {
            // 'late' is pushed first but its transaction commits after 'early'
            Future<?> slow = pool.submit(() -> tx.executeWithoutResult(status -> {
                pushes.push(new PushRequest(late, worker, null, PushStatus.SUCCESS, null, null, null, null));
                pushedLate.countDown();
                await(commitLate);
            }));
            pushedLate.await();
            assertThat(push(early, worker, Map.of()).status()).isEqualTo(200);

            Api.Response whileOpen = api.get("/blackboard/results?after=" + cursor);
            consumed.addAll(ids(whileOpen));
            cursor = whileOpen.at("/next").asString();

            commitLate.countDown();
            slow.get();
        }
        Api.Response afterCommit = api.get("/blackboard/results?after=" + cursor);
        consumed.addAll(ids(afterCommit));

        assertThat(consumed).containsExactly(late, early);
    }

    @Test
    void aWaitingReaderIsAnsweredWhenAResultArrives() throws Exception {
        UUID job = createJob(echo, Map.of());
        claim(worker, 1);
        try (var pool = Executors.newSingleThreadExecutor()) {
            Future<Api.Response> reader = pool.submit(() -> api.get("/blackboard/results?waitMs=10000"));
            Thread.sleep(300);
            push(job, worker, Map.of());
            long start = System.nanoTime();
            assertThat(ids(reader.get())).containsExactly(job);
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(5_000);
        }
    }

    @Test
    void badCursorsAre400() {
        assertProblem(api.get("/blackboard/results?after=abc"), 400, "cursor");
        assertProblem(api.get("/blackboard/results?after=-1-2"), 400, "cursor");
        assertProblem(api.get("/blackboard/results?limit=5000"), 400, "limit");
    }

    @Test
    void pushedJobsPastTheRetentionAreDeletedWithTheirEvents() {
        List<UUID> jobs = createJobs(echo, 3);
        claim(worker, 2);
        push(jobs.get(0), worker, Map.of());
        push(jobs.get(1), worker, Map.of());
        jdbc.sql("update job set pushed_at = now() - interval '8 days' where id = :id").param("id", jobs.get(0)).update();
        jdbc.sql("update job set created_at = now() - interval '30 days' where id = :id").param("id", jobs.get(2)).update();

        assertThat(reaper.runOnce()).isEqualTo(new PushedJobReaper.Result(1));

        assertProblem(api.get("/blackboard/jobs/" + jobs.get(0)), 404, "does not exist");
        assertThat(status(jobs.get(1))).isEqualTo("PUSHED");
        assertThat(status(jobs.get(2))).isEqualTo("PENDING");
        assertThat(jdbc.sql("select count(*) from job_event where job_id = :id").param("id", jobs.get(0))
                .query(Long.class).single()).isZero();
    }

    @Test
    void aPassDeletesInBatchesAndWaitsAfterEachFullOne() {
        List<UUID> jobs = pushedJobs(5, properties.jobRetention().plusSeconds(1));
        List<Long> pauses = new ArrayList<>();

        PushedJobReaper.Result result = reaper.runOnce(2, nanos -> pauses.add(nanos));

        assertThat(result).isEqualTo(new PushedJobReaper.Result(5));
        assertThat(pauses).as("after the two full batches, not after the last one").hasSize(2)
                .allSatisfy(nanos -> assertThat(nanos).isPositive());
        jobs.forEach(id -> assertProblem(api.get("/blackboard/jobs/" + id), 404, "does not exist"));
    }

    @Test
    void aPassThatFindsJobsFarPastTheRetentionIsBehindAndDoesNotWait() {
        pushedJobs(5, properties.jobRetention()
                .plus(properties.reaperInterval().multipliedBy(PushedJobReaper.TOLERATED_LAG)).plusSeconds(1));
        List<Long> pauses = new ArrayList<>();

        assertThat(reaper.runOnce(2, nanos -> pauses.add(nanos))).isEqualTo(new PushedJobReaper.Result(5));
        assertThat(pauses).hasSize(2).containsOnly(0L);
    }

    @Test
    void aPassInterruptedWhileWaitingStopsAndTheNextOneGoesOn() {
        pushedJobs(5, properties.jobRetention().plusSeconds(1));

        assertThat(reaper.runOnce(2, nanos -> false)).isEqualTo(new PushedJobReaper.Result(2));
        assertThat(jdbc.sql("select count(*) from job").query(Long.class).single()).isEqualTo(3);
        assertThat(reaper.runOnce()).isEqualTo(new PushedJobReaper.Result(3));
    }

    /**
     * The reaper's batch finds its jobs and events by index in a generic plan (the batch size is
     * a parameter, so the planner cannot know the batch is small), with fresh statistics on both
     * tables. Joining the batch instead hashed against every event and every expired job: 840 ms
     * a batch under load (BENCHMARKS.md). Runs as the tables' owner, no superuser needed.
     */
    @Test
    void theReapersBatchProbesItsIndexesWhateverThePlannersStatistics() throws Exception {
        jdbc.sql("""
                insert into job (id, function_block_id, type, status, attempt, worker_id, polled_at, deadline,
                                 pushed_at, outcome, push_xid, push_seq)
                select gen_random_uuid(), :fb, 'EXECUTE', 'PUSHED', 1, :worker, now(), now(),
                       now() - :agoMs * interval '1 millisecond', 'SUCCESS', pg_current_xact_id(), g
                  from generate_series(1, 2000) g
                """).param("fb", echo).param("worker", worker)
                .param("agoMs", properties.jobRetention().plusHours(1).toMillis()).update();
        jdbc.sql("""
                insert into job_event (job_id, kind, attempt, worker_id, actor)
                select id, k, 1, worker_id, 'worker' from job, unnest(array['CREATED', 'CLAIMED', 'PUSHED']) k
                """).update();
        String generic = ResultStore.JOB_DELETE_EXPIRED.replace(":retentionMs", "$1").replace(":batch", "$2");
        String plan;
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("analyze job, job_event");
            statement.execute("set plan_cache_mode = force_generic_plan");
            statement.execute("prepare reap(bigint, int) as " + generic);
            StringBuilder lines = new StringBuilder();
            try (ResultSet rs = statement.executeQuery("explain (costs off) execute reap(60000, 500)")) {
                while (rs.next()) {
                    lines.append(rs.getString(1)).append('\n');
                }
            }
            statement.execute("deallocate reap");
            statement.execute("reset plan_cache_mode"); // the connection goes back to the pool
            plan = lines.toString();
        }

        assertThat(plan).as(plan).doesNotContain("Seq Scan", "Hash Join", "Merge Join")
                .contains("job_event_by_job", "job_pkey");
        assertThat(reaper.runOnce()).isEqualTo(new PushedJobReaper.Result(2_000));
        assertThat(count("job_event")).isZero();
    }

    /** {@code count} jobs pushed {@code ago}. */
    private List<UUID> pushedJobs(int count, Duration ago) {
        List<UUID> jobs = createJobs(echo, count);
        claim(worker, count);
        jobs.forEach(id -> assertThat(push(id, worker, Map.of()).status()).isEqualTo(200));
        jdbc.sql("update job set pushed_at = now() - :ms * interval '1 millisecond'").param("ms", ago.toMillis()).update();
        return jobs;
    }

    static List<UUID> ids(Api.Response page) {
        assertThat(page.status()).as(page.toString()).isEqualTo(200);
        return page.at("/results").valueStream().map(BlackboardTest::id).toList();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
