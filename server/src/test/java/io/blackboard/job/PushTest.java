package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PushTest extends BlackboardTest {

    static final Map<String, Object> RESULT = Map.of("result", Map.of("config", "hostname r1"),
            "acquires", List.of(Map.of("entity", "interface", "id", 3)),
            "dbUpdates", List.of(Map.of("op", "patch", "id", 7)));

    UUID job;

    @BeforeEach
    void claimOne() {
        workerServingEcho(Map.of("concurrency", 5));
        job = createJob(echo, Map.of());
        assertThat(claim(worker, 1)).containsExactly(job);
    }

    @Test
    void theHolderPushesSuccessWithItsResultAcquiresAndDbUpdates() {
        Api.Response response = push(job, worker, RESULT);

        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        var stored = job(job);
        assertThat(stored.get("status").asString()).isEqualTo("PUSHED");
        assertThat(stored.get("outcome").asString()).isEqualTo("SUCCESS");
        assertThat(stored.get("failureReason").isNull()).isTrue();
        assertThat(stored.at("/result/config").asString()).isEqualTo("hostname r1");
        assertThat(stored.at("/acquires/0/entity").asString()).isEqualTo("interface");
        assertThat(stored.at("/dbUpdates/0/op").asString()).isEqualTo("patch");
        assertThat(stored.get("pushedAt").asString()).isNotBlank();
        assertThat(api.get("/workers/" + worker).at("/heldJobs").asInt()).isZero();
    }

    @Test
    void aReportedFailureIsPushedWithItsError() {
        Api.Response response = push(job, worker, Map.of("status", "FAILURE",
                "error", Map.of("message", "device unreachable")));

        assertThat(response.status()).isEqualTo(200);
        var stored = job(job);
        assertThat(stored.get("outcome").asString()).isEqualTo("FAILURE");
        assertThat(stored.get("failureReason").asString()).isEqualTo("WORKER_REPORTED");
        assertThat(stored.at("/error/message").asString()).isEqualTo("device unreachable");
    }

    @Test
    void pushingTheSameResultAgainIs200AndChangesNothing() {
        push(job, worker, RESULT);
        String before = row(job);

        Api.Response again = push(job, worker, RESULT);

        assertThat(again.status()).isEqualTo(200);
        assertThat(id(again.body())).isEqualTo(job);
        assertThat(row(job)).isEqualTo(before);
        assertThat(jdbc.sql("select count(*) from job_event where kind = 'PUSHED'").query(Long.class).single())
                .isEqualTo(1);
    }

    @Test
    void aDifferentResultForAPushedJobIs409AndChangesNothing() {
        push(job, worker, RESULT);
        String before = row(job);

        assertProblem(push(job, worker, Map.of("result", Map.of("config", "other"))), 409, "different result");
        assertProblem(push(job, worker, Map.of("status", "FAILURE")), 409, "different result");
        assertThat(row(job)).isEqualTo(before);
    }

    @Test
    void onlyTheHolderMayPush() {
        UUID other = registerWorker("other");
        String before = row(job);

        Api.Response response = push(job, other, RESULT);

        assertProblem(response, 409, "not held by worker " + other);
        assertThat(response.at("/jobStatus").asString()).isEqualTo("POLLED");
        assertThat(row(job)).isEqualTo(before);
    }

    @Test
    void aPushNamingAStaleAttemptIs409AndChangesNothing() {
        String before = row(job);

        Api.Response response = push(job, worker, Map.of("attempt", 2));

        assertProblem(response, 409, "at attempt 2");
        assertThat(row(job)).isEqualTo(before);
        assertThat(push(job, worker, Map.of("attempt", 1)).status()).isEqualTo(200);
    }

    @Test
    void aPushForAnUnknownJobIs404AndBadPushesAre400() {
        assertProblem(push(UUID.randomUUID(), worker, Map.of()), 404, "does not exist");
        assertProblem(push(job, worker, Map.of("status", "DONE")), 400, "status");
        assertProblem(api.post("/blackboard/job/result", Map.of("jobId", job, "status", "SUCCESS")), 400, "workerId");
        assertProblem(push(job, worker, Map.of("attempt", 0)), 400, "attempt");
        assertThat(status(job)).isEqualTo("POLLED");
    }

    /** Found by ContractTest: {@code "status": 0} was read as the enum's first constant, SUCCESS. */
    @Test
    void aNumberIsNoStatusEvenWhereItCouldIndexOne() {
        for (int number : List.of(0, 1)) {
            Api.Response response = push(job, worker, Map.of("status", number));
            assertThat(response.status()).as(response.toString()).isEqualTo(400);
            assertThat(response.contentType()).startsWith("application/problem+json");
        }
        assertThat(status(job)).isEqualTo("POLLED");
    }

    @Test
    void theWorkersJobsCanBeFilteredByStatusInAnyCase() {
        UUID second = createJob(echo, Map.of());
        claim(worker, 1);
        push(job, worker, RESULT);

        assertThat(ids(api.get("/workers/" + worker + "/jobs?status=polled"))).containsExactly(second);
        assertThat(ids(api.get("/workers/" + worker + "/jobs?status=PUSHED"))).containsExactly(job);
        assertThat(ids(api.get("/workers/" + worker + "/jobs"))).containsExactlyInAnyOrder(job, second);
        assertProblem(api.get("/workers/" + worker + "/jobs?status=done"), 400, "done");
        assertProblem(api.get("/workers/" + UUID.randomUUID() + "/jobs"), 404, "not registered");
    }

    @Test
    void theAuditTrailRecordsEveryTransition() {
        push(job, worker, RESULT);

        var events = api.get("/blackboard/jobs/" + job + "/events").body();

        assertThat(events.valueStream().map(e -> e.get("kind").asString()).toList())
                .containsExactly("CREATED", "CLAIMED", "PUSHED");
        assertThat(events.get(1).get("attempt").asInt()).isEqualTo(1);
        assertThat(events.get(1).get("workerId").asString()).isEqualTo(worker.toString());
        assertThat(events.get(2).get("detail").asString()).isEqualTo("SUCCESS");
        assertThat(events.get(2).get("at").asString()).isNotBlank();
    }

    static List<UUID> ids(Api.Response response) {
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return response.body().valueStream().map(BlackboardTest::id).toList();
    }
}
