package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.RowLock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/** Jobs that may not run before their time (issue 24): PENDING, scheduled, claimable once due. */
class ScheduledJobTest extends BlackboardTest {

    @Autowired
    DueJobs due;

    @Autowired
    DataSource dataSource;

    private final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    @Test
    void aScheduledJobIsPendingButNotClaimedBeforeItsTime() {
        workerServingEcho(Map.of());
        OffsetDateTime before = databaseNow();
        UUID scheduled = createJob(echo, Map.of("delayMs", 3_600_000));

        JsonNode job = job(scheduled);
        assertThat(job.get("status").asString()).isEqualTo("PENDING");
        assertThat(job.get("scheduled").asBoolean()).isTrue();
        assertThat(OffsetDateTime.parse(job.get("runAt").asString()))
                .isBetween(before.plusMinutes(59), before.plusMinutes(61));
        assertThat(claim(worker, 1)).as("not before its time").isEmpty();
        assertThat(due.makeDue()).as("not due yet").isZero();
        assertThat(events(scheduled)).containsExactly("CREATED");
        assertThat(api.get("/blackboard/jobs/" + scheduled + "/events").at("/0/detail").asString()).startsWith("runAt ");

        makeDueBySql(scheduled);
        sweepUntilNoneDue();

        assertThat(job(scheduled).get("scheduled").asBoolean()).isFalse();
        assertThat(claim(worker, 1)).containsExactly(scheduled);
        assertThat(events(scheduled)).containsExactly("CREATED", "DUE", "CLAIMED");
    }

    @Test
    void aTimeAlreadyPastIsClaimableAtOnce() {
        workerServingEcho(Map.of("concurrency", 5));
        UUID past = createJob(echo, Map.of("runAt", OffsetDateTime.now().minusMinutes(1).toString()));
        UUID noDelay = createJob(echo, Map.of("delayMs", 0));

        assertThat(job(past).get("scheduled").asBoolean()).isFalse();
        assertThat(job(past).get("runAt").isNull()).isFalse();
        assertThat(claim(worker, 5)).containsExactlyInAnyOrder(past, noDelay);
    }

    @Test
    void aParkedPollWakesWhenAScheduledJobFallsDue() throws Exception {
        workerServingEcho(Map.of());
        Future<Api.Response> parked = pool.submit(
                () -> api.post("/blackboard/job", Map.of("workerId", worker, "waitMs", 10_000)));
        Thread.sleep(200); // parked: its first claim found nothing
        long start = System.nanoTime();
        UUID scheduled = createJob(echo, Map.of("delayMs", 500));

        Api.Response response = parked.get();
        long tookMs = Duration.ofNanos(System.nanoTime() - start).toMillis();
        assertThat(response.body().valueStream().map(BlackboardTest::id).toList()).containsExactly(scheduled);
        JsonNode claimed = job(scheduled);
        assertThat(OffsetDateTime.parse(claimed.get("polledAt").asString()))
                .as("never claimed before its time")
                .isAfterOrEqualTo(OffsetDateTime.parse(claimed.get("runAt").asString()));
        // the parked poll re-checks on its own every 2 s: answered sooner, the due job woke it
        assertThat(tookMs).as("woken when it fell due, not by the poll's own re-check").isLessThan(1_900);
    }

    @Test
    void runAtAndDelayAreCheckedAndNotBoth() {
        workerServingEcho(Map.of());
        assertProblem(api.post("/blackboard/jobs", Map.of("functionBlockId", echo, "type", "EXECUTE",
                "runAt", OffsetDateTime.now().plusHours(1).toString(), "delayMs", 1000)), 400, "not both");
        assertProblem(api.post("/blackboard/jobs", Map.of("functionBlockId", echo, "type", "EXECUTE",
                "delayMs", -1)), 400, "delayMs");
        assertProblem(api.post("/blackboard/jobs", Map.of("functionBlockId", echo, "type", "EXECUTE",
                "delayMs", CreateJob.MAX_DELAY_MS + 1)), 400, "delayMs");
        assertThat(api.post("/blackboard/jobs", Map.of("functionBlockId", echo, "type", "EXECUTE",
                "runAt", "tomorrow")).status()).isEqualTo(400);
        assertProblem(api.post("/blackboard/jobs", Map.of("functionBlockId", echo, "type", "EXECUTE",
                "runAt", "+300000-01-01T00:00:00Z")), 400, "runAt");
        assertThat(jdbc.sql("select count(*) from job").query(Long.class).single()).isZero();
    }

    @Test
    void aScheduledJobCanBeCancelledAndThenNeverFallsDue() {
        workerServingEcho(Map.of());
        UUID scheduled = createJob(echo, Map.of("delayMs", 3_600_000));

        assertThat(api.post("/blackboard/jobs/" + scheduled + "/cancel", null).status()).isEqualTo(200);
        makeDueBySql(scheduled);

        assertThat(due.makeDue()).isZero();
        JsonNode job = job(scheduled);
        assertThat(job.get("status").asString()).isEqualTo("PUSHED");
        assertThat(job.get("outcome").asString()).isEqualTo("CANCELLED");
        assertThat(job.get("scheduled").asBoolean()).isFalse();
    }

    @Test
    void listsAndTheCatalogShowScheduledJobs() {
        workerServingEcho(Map.of());
        UUID scheduled = createJob(echo, Map.of("delayMs", 3_600_000));
        UUID ready = createJob(echo, Map.of());

        assertThat(api.get("/blackboard/jobs?status=pending").body().get("jobs").valueStream()
                .map(BlackboardTest::id).toList()).containsExactly(scheduled, ready);
        JsonNode entry = api.get("/function-blocks").body().get(0);
        assertThat(entry.get("scheduled").asLong()).isEqualTo(1);
        assertThat(entry.get("pending").asLong()).as("claimable now").isEqualTo(1);
    }

    @Test
    void aJobHeldByAnotherTransactionIsLeftForTheNextPass() throws Exception {
        workerServingEcho(Map.of());
        UUID locked = createJob(echo, Map.of("delayMs", 3_600_000));
        UUID free = createJob(echo, Map.of("delayMs", 3_600_000));

        due.stop(); // its own pass could take the job before the lock below is held
        makeDueBySql(locked);
        makeDueBySql(free);
        try (RowLock lock = RowLock.hold(dataSource, "job", locked)) {
            due.makeDue();
            assertThat(storedStatus(free)).isEqualTo("PENDING");
            assertThat(storedStatus(locked)).as("skipped while a cancel (say) holds it").isEqualTo("SCHEDULED");
        } finally {
            due.start();
        }
        // the restarted loop's own pass may hold the row while this one skips it: either makes it due
        due.makeDue();
        long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!storedStatus(locked).equals("PENDING") && System.nanoTime() < until) {
            Thread.sleep(20);
        }
        assertThat(storedStatus(locked)).isEqualTo("PENDING");
    }

    /** Replicas and cancels racing over the same due jobs: each job falls due once, or is cancelled. */
    @Test
    void concurrentPassesAndCancelsNeverMakeAJobDueTwice() throws Exception {
        workerServingEcho(Map.of());
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            batch.add(Map.of("functionBlockId", echo, "type", "EXECUTE", "delayMs", 3_600_000));
        }
        List<UUID> ids = api.post("/blackboard/jobs", batch).body().valueStream().map(BlackboardTest::id).toList();
        jdbc.sql("update job set run_at = now() - interval '1 second'").update();

        List<Future<Integer>> passes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            passes.add(pool.submit(due::makeDue));
        }
        List<Future<Integer>> cancels = new ArrayList<>();
        for (UUID id : ids.subList(0, 60)) {
            cancels.add(pool.submit(() -> api.post("/blackboard/jobs/" + id + "/cancel", null).status()));
        }
        for (Future<Integer> pass : passes) {
            pass.get();
        }
        for (Future<Integer> cancel : cancels) {
            assertThat(cancel.get()).isEqualTo(200);
        }
        sweepUntilNoneDue();

        assertThat(jdbc.sql("""
                select count(*) from job j where outcome is distinct from 'CANCELLED'
                   and not exists (select 1 from job_event e where e.job_id = j.id and e.kind = 'DUE')
                """).query(Long.class).single()).as("every job not cancelled fell due").isZero();
        assertThat(jdbc.sql("select count(*) from job_event where kind = 'DUE' group by job_id having count(*) > 1")
                .query(Long.class).list()).as("no job fell due twice").isEmpty();
        assertThat(jdbc.sql("select count(*) from job where status = 'SCHEDULED'").query(Long.class).single()).isZero();
        assertThat(jdbc.sql("select count(*) from job where status = 'PENDING'").query(Long.class).single())
                .isEqualTo(240);
    }

    private String storedStatus(UUID jobId) {
        return jdbc.sql("select status from job where id = :id").param("id", jobId).query(String.class).single();
    }

    private OffsetDateTime databaseNow() {
        return jdbc.sql("select now()").query(OffsetDateTime.class).single();
    }

    /**
     * Passes until no job is left SCHEDULED past its time. DueJobs also runs on its own, and its
     * pass may hold a row (this one skips it, SKIP LOCKED) until it commits: one pass here is not
     * enough to know every due job is PENDING (RetryTest's makeDue, for one job).
     */
    private void sweepUntilNoneDue() {
        for (int i = 0; i < 100 && overdue() > 0; i++) {
            due.makeDue();
            if (overdue() > 0) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
        }
        assertThat(overdue()).as("every due job made PENDING").isZero();
    }

    private long overdue() {
        return jdbc.sql("select count(*) from job where status = 'SCHEDULED' and run_at <= now()")
                .query(Long.class).single();
    }

    /** Moves a scheduled job's time into the past, as if its time had come. */
    private void makeDueBySql(UUID jobId) {
        jdbc.sql("update job set run_at = now() - interval '1 second' where id = :id").param("id", jobId).update();
    }

    private List<String> events(UUID jobId) {
        return api.get("/blackboard/jobs/" + jobId + "/events").body().valueStream()
                .map(event -> event.get("kind").asString()).toList();
    }
}
