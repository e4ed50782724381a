package io.blackboard.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class OperatorViewsTest extends IntegrationTest {

    UUID job(UUID functionBlockId) {
        Api.Response created = api.post("/blackboard/jobs",
                Map.of("functionBlockId", functionBlockId, "type", "EXECUTE", "correlationId", "wf-1"));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return UUID.fromString(created.at("/id").asString());
    }

    UUID claim(UUID worker) {
        Api.Response claimed = api.post("/blackboard/job", Map.of("workerId", worker));
        assertThat(claimed.body()).as(claimed.toString()).hasSize(1);
        return UUID.fromString(claimed.at("/0/id").asString());
    }

    @Test
    void workersComeWithTheFunctionBlocksTheyServe() {
        UUID worker = registerWorker(Map.of("name", "cisco", "labels", Map.of("site", "a")));
        registerBlocks(worker, List.of(block("ping", "1.0.0"), block("backup", "2.0.0")));
        UUID idle = registerWorker("idle");
        api.post("/workers/" + idle + "/unregister", null);

        Api.Response all = api.get("/operator/workers");

        assertThat(all.status()).isEqualTo(200);
        assertThat(all.body()).hasSize(2);
        assertThat(all.at("/0/worker/name").asString()).isEqualTo("cisco");
        assertThat(all.at("/0/worker/labels/site").asString()).isEqualTo("a");
        assertThat(all.at("/0/worker/deaf").asBoolean()).isFalse();
        assertThat(all.at("/0/functionBlocks/0/name").asString()).isEqualTo("backup");
        assertThat(all.at("/0/functionBlocks/1/name").asString()).isEqualTo("ping");
        assertThat(all.at("/1/functionBlocks").isEmpty()).isTrue();
        Api.Response offline = api.get("/operator/workers?state=offline");
        assertThat(offline.body()).hasSize(1);
        assertThat(offline.at("/0/worker/name").asString()).isEqualTo("idle");
        assertProblem(api.get("/operator/workers?state=sleepy"), 400, "Unknown worker state");
    }

    @Test
    void recentFailuresNewestFirstWithTheirReasons() {
        UUID worker = registerWorker(Map.of("name", "w", "concurrency", 3));
        UUID echo = registerBlocks(worker, List.of(block("echo", "1.0.0"))).getFirst();
        job(echo);
        UUID reported = claim(worker);
        api.post("/blackboard/job/result", Map.of("jobId", reported, "workerId", worker, "status", "FAILURE",
                "error", Map.of("message", "device refused")));
        job(echo);
        UUID succeeded = claim(worker);
        api.post("/blackboard/job/result", Map.of("jobId", succeeded, "workerId", worker, "status", "SUCCESS"));
        job(echo);
        UUID lost = claim(worker);
        api.delete("/workers/" + worker);

        Api.Response failures = api.get("/operator/failures?limit=10");

        assertThat(failures.status()).isEqualTo(200);
        assertThat(failures.body()).hasSize(2);
        assertThat(failures.at("/0/jobId").asString()).isEqualTo(lost.toString());
        assertThat(failures.at("/0/failureReason").asString()).isEqualTo("WORKER_DELETED");
        assertThat(failures.at("/1/jobId").asString()).isEqualTo(reported.toString());
        assertThat(failures.at("/1/failureReason").asString()).isEqualTo("WORKER_REPORTED");
        assertThat(failures.at("/1/error/message").asString()).isEqualTo("device refused");
        assertThat(failures.at("/1/functionBlock").asString()).isEqualTo("echo");
        assertThat(failures.at("/1/workerName").asString()).isEqualTo("w");
        assertThat(failures.at("/1/correlationId").asString()).isEqualTo("wf-1");

        assertThat(api.get("/operator/failures?reason=worker_reported").body()).hasSize(1);
        assertThat(api.get("/operator/failures?limit=1").body()).hasSize(1);
        assertThat(api.get("/operator/failures?functionBlockId=" + UUID.randomUUID()).body()).isEmpty();
        assertProblem(api.get("/operator/failures?reason=BAD_LUCK"), 400, "Unknown failure reason");
        assertProblem(api.get("/operator/failures?limit=0"), 400, "limit");
    }
}
