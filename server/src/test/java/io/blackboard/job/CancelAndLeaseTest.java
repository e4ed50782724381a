package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blackboard.Api;
import io.blackboard.worker.HeldJobs;
import io.blackboard.worker.WorkerLoss;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.IllegalTransactionStateException;

class CancelAndLeaseTest extends BlackboardTest {

    @Autowired
    HeldJobs heldJobs;

    @BeforeEach
    void setUp() {
        workerServingEcho(Map.of("concurrency", 5));
    }

    @Test
    void cancellingAPendingJobPushesItCancelledAndNoWorkerGetsIt() {
        UUID job = createJob(echo, Map.of());

        Api.Response response = api.post("/blackboard/jobs/" + job + "/cancel", null);

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.at("/status").asString()).isEqualTo("PUSHED");
        assertThat(response.at("/outcome").asString()).isEqualTo("CANCELLED");
        assertThat(claim(worker, 1)).isEmpty();
        assertThat(api.post("/blackboard/jobs/" + job + "/cancel", null).status()).as("again: no-op").isEqualTo(200);
    }

    @Test
    void cancellingAHeldJobTellsItsWorkerAndRefusesItsLaterPush() {
        UUID job = createJob(echo, Map.of());
        claim(worker, 1);

        api.post("/blackboard/jobs/" + job + "/cancel", null);
        String before = row(job);

        assertThat(cancelIds(api.post("/workers/" + worker + "/ping", null))).containsExactly(job);
        assertThat(cancelIds(api.post("/workers/" + worker + "/ping", Map.of("activeJobIds", List.of(job)))))
                .containsExactly(job);
        assertProblem(push(job, worker, Map.of()), 409, "CANCELLED");
        assertThat(row(job)).isEqualTo(before);
    }

    /**
     * A ping that does not list its jobs learns of cancellations from a small index, not by
     * reading every job the worker held that retention still keeps.
     */
    @Test
    void aPingWithoutItsJobsFindsCancellationsWithoutReadingTheWorkersHistory() {
        UUID job = createJob(echo, Map.of());
        claim(worker, 1);
        api.post("/blackboard/jobs/" + job + "/cancel", null);
        jdbc.sql("""
                insert into job (id, function_block_id, type, status, attempt, worker_id, polled_at, deadline,
                                 pushed_at, outcome, push_xid, push_seq)
                select gen_random_uuid(), :fb, 'EXECUTE', 'PUSHED', 1, :worker, now(), now(), now(), 'SUCCESS',
                       pg_current_xact_id(), g
                  from generate_series(1, 5000) g
                """).param("fb", echo).param("worker", worker).update();
        jdbc.sql("analyze job").update();

        String plan = String.join("\n", jdbc.sql("explain (costs off) " + JobLeaseStore.JOB_CANCELLED_WHILE_HELD)
                .param("workerId", worker).param("windowMs", 720_000).query(String.class).list());

        assertThat(plan).as(plan).contains("job_cancelled_while_held").doesNotContain("job_by_worker");
        assertThat(cancelIds(api.post("/workers/" + worker + "/ping", null))).containsExactly(job);
    }

    @Test
    void aFinishedJobCannotBeCancelled() {
        UUID job = createJob(echo, Map.of());
        claim(worker, 1);
        push(job, worker, Map.of());

        Api.Response response = api.post("/blackboard/jobs/" + job + "/cancel", null);

        assertProblem(response, 409, "can no longer be cancelled");
        assertThat(response.at("/outcome").asString()).isEqualTo("SUCCESS");
    }

    @Test
    void aPingListingHeldJobsExtendsTheirDeadlines() {
        UUID job = createJob(echo, Map.of());
        claim(worker, 1);
        jdbc.sql("update job set deadline = now() + interval '1 minute' where id = :id").param("id", job).update();

        Api.Response reply = api.post("/workers/" + worker + "/ping", Map.of("activeJobIds", List.of(job)));

        assertThat(cancelIds(reply)).isEmpty();
        boolean extended = jdbc.sql("select deadline > now() + interval '11 minutes' from job where id = :id")
                .param("id", job).query(Boolean.class).single();
        assertThat(extended).isTrue();
    }

    @Test
    void aClaimTheWorkerDoesNotKnowOfIsReleasedWithoutSpendingAnAttempt() {
        UUID lost = createJob(echo, Map.of());
        UUID known = createJob(echo, Map.of());
        claim(worker, 2);
        jdbc.sql("update job set polled_at = now() - interval '1 minute' where id in (:a, :b)")
                .param("a", lost).param("b", known).update();

        api.post("/workers/" + worker + "/ping", Map.of("activeJobIds", List.of(known)));

        var released = job(lost);
        assertThat(released.get("status").asString()).isEqualTo("PENDING");
        assertThat(status(known)).isEqualTo("POLLED");
        assertThat(claim(worker, 1)).containsExactly(lost);
        assertThat(job(lost).get("attempt").asInt()).as("a new claim, so a new fencing number").isEqualTo(2);
        push(lost, worker, Map.of());
        assertThat(job(lost).get("outcome").asString()).isEqualTo("SUCCESS");
    }

    @Test
    void anIdlePingReleasesEveryClaimPastTheGracePeriod() {
        UUID old = createJob(echo, Map.of());
        claim(worker, 1);
        UUID fresh = createJob(echo, Map.of());
        claim(worker, 1);
        jdbc.sql("update job set polled_at = now() - interval '1 minute' where id = :id").param("id", old).update();

        Api.Response reply = api.post("/workers/" + worker + "/ping", Map.of("activeJobIds", List.of()));

        assertThat(cancelIds(reply)).isEmpty();
        assertThat(status(old)).isEqualTo("PENDING");
        assertThat(status(fresh)).isEqualTo("POLLED");
        assertThat(jdbc.sql("select count(*) from job_event where job_id = :id and kind = 'RELEASED'")
                .param("id", old).query(Long.class).single()).isEqualTo(1);
    }

    @Test
    void theLeaseWorkRefusesToRunOutsideTheCallersTransaction() {
        UUID held = createJob(echo, Map.of());
        claim(worker, 1);
        jdbc.sql("update job set polled_at = now() - interval '1 minute' where id = :id").param("id", held).update();

        assertThatThrownBy(() -> heldJobs.heartbeat(worker, List.of()))
                .isInstanceOf(IllegalTransactionStateException.class).hasMessageContaining("transaction");
        assertThatThrownBy(() -> heldJobs.takeFrom(List.of(worker), WorkerLoss.WORKER_OFFLINE))
                .isInstanceOf(IllegalTransactionStateException.class);
        assertThat(status(held)).isEqualTo("POLLED");
    }

    @Test
    void anIdlePingOfAWorkerHoldingNothingChangesNoJob() {
        UUID job = createJob(echo, Map.of());
        String before = row(job);

        Api.Response reply = api.post("/workers/" + worker + "/ping", Map.of("activeJobIds", List.of()));

        assertThat(cancelIds(reply)).isEmpty();
        assertThat(reply.at("/state").asString()).isEqualTo("ONLINE");
        assertThat(row(job)).isEqualTo(before);
    }

    @Test
    void aFreshClaimIsNotReleasedWithinTheGracePeriod() {
        UUID job = createJob(echo, Map.of());
        claim(worker, 1);

        api.post("/workers/" + worker + "/ping", Map.of("activeJobIds", List.of()));

        assertThat(status(job)).isEqualTo("POLLED");
    }

    @Test
    void aListedJobTheWorkerNoLongerHoldsIsReportedBackNotExtended() {
        UUID job = createJob(echo, Map.of());
        claim(worker, 1);
        expire(job);
        jdbc.sql("update job set status = 'PUSHED', outcome = 'FAILURE', failure_reason = 'STUCK_TIMEOUT', "
                + "pushed_at = now(), push_xid = pg_current_xact_id(), push_seq = nextval('job_push_seq') "
                + "where id = :id").param("id", job).update();

        Api.Response reply = api.post("/workers/" + worker + "/ping", Map.of("activeJobIds", List.of(job)));

        assertThat(cancelIds(reply)).containsExactly(job);
    }

    static List<UUID> cancelIds(Api.Response reply) {
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        return reply.at("/cancelJobIds").valueStream().map(n -> UUID.fromString(n.asString())).toList();
    }
}
