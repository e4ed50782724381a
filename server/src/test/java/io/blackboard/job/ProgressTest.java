package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Progress from workers (issue 24): on the job, in its events and the dashboard's view, a lease extension. */
class ProgressTest extends BlackboardTest {

    @Test
    void aReportIsRecordedOnTheJobAndInItsEventsAndExtendsTheLease() {
        workerServingEcho(Map.of());
        UUID id = claimedJob(echo);
        jdbc.sql("update job set deadline = now() + interval '5 seconds' where id = :id").param("id", id).update();

        Api.Response answer = progress(id, 1, 40, "copying config");

        assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
        assertThat(answer.at("/recorded").asBoolean()).isTrue();
        JsonNode job = job(id);
        assertThat(job.get("progressPercent").asInt()).isEqualTo(40);
        assertThat(job.get("progressMessage").asString()).isEqualTo("copying config");
        OffsetDateTime polledAt = OffsetDateTime.parse(job.get("polledAt").asString());
        OffsetDateTime deadline = OffsetDateTime.parse(job.get("deadline").asString());
        assertThat(deadline).as("extended as a ping would: the stuck timeout from now")
                .isAfter(polledAt.plusMinutes(11));
        assertThat(OffsetDateTime.parse(answer.at("/deadline").asString())).isEqualTo(deadline);
        JsonNode event = api.get("/blackboard/jobs/" + id + "/events").body().get(2);
        assertThat(event.get("kind").asString()).isEqualTo("PROGRESS");
        assertThat(event.get("detail").asString()).isEqualTo("40% copying config");
        JsonNode running = api.get("/operator/running").body().get(0);
        assertThat(running.get("jobId").asString()).isEqualTo(id.toString());
        assertThat(running.get("progressPercent").asInt()).isEqualTo(40);
    }

    @Test
    void reportsCloserThanTheGapChangeNothing() {
        workerServingEcho(Map.of());
        UUID id = claimedJob(echo);
        progress(id, 1, 10, null);
        String before = row(id);

        Api.Response soon = progress(id, 1, 20, "too soon");

        assertThat(soon.status()).isEqualTo(200);
        assertThat(soon.at("/recorded").asBoolean()).isFalse();
        assertThat(row(id)).isEqualTo(before);
        jdbc.sql("update job set progress_at = progress_at - interval '3 seconds' where id = :id").param("id", id)
                .update();
        assertThat(progress(id, 1, 30, null).at("/recorded").asBoolean()).isTrue();
        assertThat(job(id).get("progressPercent").asInt()).isEqualTo(30);
        assertThat(api.get("/blackboard/jobs/" + id + "/events").body().valueStream()
                .filter(e -> e.get("kind").asString().equals("PROGRESS")).count()).isEqualTo(2);
    }

    @Test
    void onlyTheLiveClaimMayReport() {
        workerServingEcho(Map.of());
        UUID id = claimedJob(echo);
        UUID other = worker("other", Map.of(), List.of(block("echo", "1.0.0")));

        assertProblem(api.post("/blackboard/job/progress", Map.of("jobId", id, "workerId", other, "percent", 5)),
                409, "not held");
        assertProblem(progress(id, 2, 5, null), 409, "attempt 2");
        assertProblem(progress(UUID.randomUUID(), 1, 5, null), 404, "");
        assertThat(push(id, worker, Map.of()).status()).isEqualTo(200);
        assertProblem(progress(id, 1, 99, null), 409, "PUSHED");
        assertThat(job(id).get("progressPercent").isNull()).isTrue();
    }

    @Test
    void badReportsAreRefused() {
        workerServingEcho(Map.of());
        UUID id = claimedJob(echo);
        String before = row(id);
        assertProblem(progress(id, 1, 101, null), 400, "percent");
        assertProblem(progress(id, 1, -1, null), 400, "percent");
        assertProblem(progress(id, 1, 5, "x".repeat(201)), 400, "message");
        assertProblem(api.post("/blackboard/job/progress", Map.of("jobId", id, "workerId", worker)), 400, "percent");
        assertThat(row(id)).isEqualTo(before);
    }

    @Test
    void progressNeverExtendsPastTheExecutionTimeoutAndANewClaimStartsAfresh() {
        worker = registerWorker("worker");
        Map<String, Object> pure = new HashMap<>(block("pure", "1.0.0"));
        pure.put("pure", true);
        UUID block = registerBlocks(worker, List.of(pure)).getFirst();
        UUID id = createJob(block, Map.of("executionTimeoutMs", 60_000, "maxAttempts", 2));
        claim(worker, 1);

        progress(id, 1, 50, "half");
        JsonNode job = job(id);
        assertThat(Duration.between(OffsetDateTime.parse(job.get("polledAt").asString()),
                OffsetDateTime.parse(job.get("deadline").asString()))).isEqualTo(Duration.ofSeconds(60));

        // the claim given back (as a release or a re-queue does), then claimed again
        jdbc.sql("update job set status = 'PENDING', worker_id = null, polled_at = null, deadline = null"
                + " where id = :id and status = 'POLLED'").param("id", id).update();
        assertThat(claim(worker, 1)).containsExactly(id);
        assertThat(job(id).get("progressPercent").isNull()).as("a new claim has no progress yet").isTrue();
    }

    private Api.Response progress(UUID id, int attempt, int percent, String message) {
        Map<String, Object> body = new HashMap<>(Map.of("jobId", id, "workerId", worker, "attempt", attempt,
                "percent", percent));
        if (message != null) {
            body.put("message", message);
        }
        return api.post("/blackboard/job/progress", body);
    }
}
