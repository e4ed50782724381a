package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class BatchPushAndDirectiveTest extends BlackboardTest {

    @Test
    void aBatchPushAnswersEachItemWithItsOwnStatus() {
        workerServingEcho(Map.of("concurrency", 10));
        UUID other = worker("other", Map.of(), List.of(block("echo", "1.0.0")));
        List<UUID> jobs = createJobs(echo, 4);
        claim(worker, 3);
        claim(other, 1);
        UUID othersJob = jobs.get(3);
        String othersRow = row(othersJob);
        UUID unknown = UUID.randomUUID();

        Api.Response response = api.post("/blackboard/job/results", List.of(
                Map.of("jobId", jobs.get(0), "workerId", worker, "status", "SUCCESS", "result", Map.of("ok", 1)),
                Map.of("jobId", jobs.get(1), "workerId", worker, "status", "FAILURE",
                        "error", Map.of("message", "timeout")),
                Map.of("jobId", othersJob, "workerId", worker, "status", "SUCCESS"),
                Map.of("jobId", unknown, "workerId", worker, "status", "SUCCESS"),
                Map.of("jobId", jobs.get(2), "workerId", worker, "attempt", 7, "status", "SUCCESS")));

        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        assertThat(response.body().valueStream().map(i -> i.get("status").asInt()).toList())
                .containsExactly(200, 200, 409, 404, 409);
        assertThat(response.at("/0/job/outcome").asString()).isEqualTo("SUCCESS");
        assertThat(response.at("/1/job/failureReason").asString()).isEqualTo("WORKER_REPORTED");
        assertThat(response.at("/2/problem/detail").asString()).contains("not held");
        assertThat(response.at("/3/jobId").asString()).isEqualTo(unknown.toString());
        assertThat(job(jobs.get(0)).at("/result/ok").asInt()).isEqualTo(1);
        assertThat(status(jobs.get(2))).isEqualTo("POLLED");
        assertThat(row(othersJob)).isEqualTo(othersRow);

        Api.Response again = api.post("/blackboard/job/results", List.of(
                Map.of("jobId", jobs.get(0), "workerId", worker, "status", "SUCCESS", "result", Map.of("ok", 1))));
        assertThat(again.at("/0/status").asInt()).as("a repeat is 200").isEqualTo(200);
    }

    @Test
    void aBatchMustComeFromOneWorkerAndHoldOneToAThousandPushes() {
        workerServingEcho(Map.of());
        UUID other = registerWorker("other");

        assertProblem(api.post("/blackboard/job/results", List.of(
                Map.of("jobId", UUID.randomUUID(), "workerId", worker, "status", "SUCCESS"),
                Map.of("jobId", UUID.randomUUID(), "workerId", other, "status", "SUCCESS"))), 400, "same worker");
        assertProblem(api.post("/blackboard/job/results", List.of()), 400, "requests");
        assertProblem(api.post("/blackboard/job/results", List.of(Map.of("jobId", UUID.randomUUID()))), 400,
                "status");
    }

    @Test
    void quietingTheLastWorkerOfABlockWithPendingJobsWarns() {
        workerServingEcho(Map.of());
        createJobs(echo, 2);

        Api.Response quiet = api.put("/workers/" + worker + "/directive", Map.of("directive", "QUIET"));

        assertThat(quiet.status()).isEqualTo(200);
        assertThat(quiet.at("/directive").asString()).isEqualTo("QUIET");
        assertThat(quiet.at("/warnings/0").asString()).contains("echo@1.0.0 has 2 PENDING jobs");

        UUID spare = worker("spare", Map.of(), List.of(block("echo", "1.0.0")));
        assertThat(api.put("/workers/" + worker + "/directive", Map.of("directive", "TERMINATE"))
                .at("/warnings").isEmpty()).as("another ONLINE RUN worker serves echo").isTrue();
        api.put("/workers/" + spare + "/directive", Map.of("directive", "QUIET"));
        assertThat(api.put("/workers/" + worker + "/directive", Map.of("directive", "RUN"))
                .at("/warnings").isEmpty()).isTrue();
    }
}
