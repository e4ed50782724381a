package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class JobCreationTest extends BlackboardTest {

    @BeforeEach
    void setUp() {
        workerServingEcho(Map.of());
    }

    @Test
    void aJobIsCreatedPendingWithEveryFieldAndReadBackWhole() {
        Api.Response created = api.post("/blackboard/jobs", Map.of("functionBlockId", echo, "type", "ACQUIRE",
                "payload", Map.of("host", "r1", "entity", Map.of("id", 7)), "priority", 5, "maxAttempts", 3,
                "selector", Map.of("site", "a"), "correlationId", "wf-42/step-3"));

        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        UUID id = id(created.body());
        var job = job(id);
        assertThat(job.get("status").asString()).isEqualTo("PENDING");
        assertThat(job.get("type").asString()).isEqualTo("ACQUIRE");
        assertThat(job.get("functionBlockId").asString()).isEqualTo(echo.toString());
        assertThat(job.at("/payload/entity/id").asInt()).isEqualTo(7);
        assertThat(job.get("priority").asInt()).isEqualTo(5);
        assertThat(job.get("maxAttempts").asInt()).isEqualTo(3);
        assertThat(job.get("attempt").asInt()).isZero();
        assertThat(job.at("/selector/site").asString()).isEqualTo("a");
        assertThat(job.get("correlationId").asString()).isEqualTo("wf-42/step-3");
        assertThat(job.get("createdAt").asString()).isNotBlank();
        assertThat(job.get("workerId").isNull()).isTrue();
        assertThat(job.get("outcome").isNull()).isTrue();
    }

    @Test
    void defaultsAreAnEmptyPayloadPriorityZeroAndOneAttempt() {
        UUID id = createJob(echo, Map.of("payload", Map.of()));
        var job = job(id);
        assertThat(job.get("priority").asInt()).isZero();
        assertThat(job.get("maxAttempts").asInt()).isEqualTo(1);
        assertThat(job.get("payload").isObject()).isTrue();
    }

    @Test
    void aBatchIsCreatedInOrderAndAnsweredAsAnArray() {
        List<UUID> ids = createJobs(echo, 25);

        assertThat(ids).hasSize(25).doesNotHaveDuplicates();
        for (int i = 0; i < ids.size(); i++) {
            assertThat(job(ids.get(i)).at("/payload/n").asInt()).isEqualTo(i);
        }
    }

    @Test
    void anUnknownFunctionBlockIs422AndTheWholeBatchIsRejected() {
        UUID unknown = UUID.randomUUID();
        assertProblem(api.post("/blackboard/jobs", Map.of("functionBlockId", unknown, "type", "EXECUTE")), 422,
                unknown.toString());
        assertProblem(api.post("/blackboard/jobs", List.of(
                Map.of("functionBlockId", echo, "type", "EXECUTE"),
                Map.of("functionBlockId", unknown, "type", "EXECUTE"))), 422, "[1] functionBlockId");

        assertThat(count("job")).isZero();
    }

    @Test
    void aFunctionBlockRemovedByHandSinceItsLastJobIsUnknownAgainNotAServerError() {
        createJob(echo, Map.of()); // the server now keeps echo's contract
        jdbc.sql("truncate job_event, job, worker_function_block, function_block").update();

        Api.Response response = api.post("/blackboard/jobs", Map.of("functionBlockId", echo, "type", "EXECUTE"));

        assertProblem(response, 422, echo.toString());
        assertThat(count("job")).isZero();
    }

    @Test
    void invalidJobsAre400NamingTheFieldAndStoreNothing() {
        assertProblem(api.post("/blackboard/jobs", Map.of("functionBlockId", echo)), 400, "type");
        assertProblem(api.post("/blackboard/jobs", Map.of("functionBlockId", echo, "type", "DANCE")), 400, "type");
        assertProblem(api.post("/blackboard/jobs", Map.of("type", "EXECUTE")), 400, "functionBlockId");
        assertProblem(api.post("/blackboard/jobs", Map.of("functionBlockId", "x", "type", "EXECUTE")), 400,
                "functionBlockId");
        assertProblem(api.post("/blackboard/jobs", Map.of("functionBlockId", echo, "type", "EXECUTE",
                "maxAttempts", 0)), 400, "maxAttempts");
        assertProblem(api.post("/blackboard/jobs", Map.of("functionBlockId", echo, "type", "EXECUTE",
                "payload", List.of(1))), 400, "payload");
        assertProblem(api.post("/blackboard/jobs", Map.of("functionBlockId", echo, "type", "EXECUTE",
                "selector", Map.of("site", Map.of()))), 400, "selector");
        assertProblem(api.post("/blackboard/jobs", List.of(Map.of("functionBlockId", echo, "type", "EXECUTE"),
                Map.of("functionBlockId", echo, "type", "EXECUTE", "priority", "high"))), 400, "[1].priority");
        assertProblem(api.post("/blackboard/jobs", List.of()), 400, "1 to 1000");
        assertProblem(api.post("/blackboard/jobs", "42"), 400, "JSON object");
        assertProblem(api.post("/blackboard/jobs", "{\"type\":"), 400, "JSON");

        assertThat(count("job")).isZero();
    }

    @Test
    void theSameIdempotencyKeyReturnsTheExistingJob() {
        Map<String, Object> body = Map.of("functionBlockId", echo, "type", "EXECUTE", "payload", Map.of("a", 1),
                "idempotencyKey", "wf-1/step-1");
        Api.Response first = api.post("/blackboard/jobs", body);
        Api.Response again = api.post("/blackboard/jobs", body);

        assertThat(first.status()).isEqualTo(201);
        assertThat(again.status()).isEqualTo(200);
        assertThat(id(again.body())).isEqualTo(id(first.body()));
        assertThat(count("job")).isEqualTo(1);
    }

    @Test
    void anIdempotencyKeyReusedForDifferentContentIs409() {
        UUID existing = createJob(echo, Map.of("idempotencyKey", "k1"));

        Api.Response response = api.post("/blackboard/jobs", List.of(
                Map.of("functionBlockId", echo, "type", "EXECUTE", "idempotencyKey", "k2"),
                Map.of("functionBlockId", echo, "type", "ROLLBACK", "idempotencyKey", "k1")));

        assertProblem(response, 409, "[1] idempotencyKey 'k1'");
        assertThat(response.at("/jobId").asString()).isEqualTo(existing.toString());
        assertThat(count("job")).as("k2 rolled back with the batch").isEqualTo(1);
    }

    @Test
    void aBatchMixingNewAndKnownKeysCreatesOnlyTheNewOnes() {
        UUID existing = createJob(echo, Map.of("idempotencyKey", "k1"));

        Api.Response response = api.post("/blackboard/jobs", List.of(
                Map.of("functionBlockId", echo, "type", "EXECUTE", "payload", Map.of("host", "r1"),
                        "idempotencyKey", "k1"),
                Map.of("functionBlockId", echo, "type", "EXECUTE", "idempotencyKey", "k2")));

        assertThat(response.status()).isEqualTo(201);
        assertThat(id(response.body().get(0))).isEqualTo(existing);
        assertThat(count("job")).isEqualTo(2);
    }

    @Test
    void listingFiltersAndPagesThroughEveryJobOnce() {
        UUID other = registerBlocks(worker, List.of(block("echo", "1.0.0"), block("ping", "1.0.0"))).get(1);
        List<UUID> echoes = createJobs(echo, 23);
        createJob(other, Map.of("correlationId", "wf-9"));

        Set<UUID> seen = new HashSet<>();
        List<UUID> order = new ArrayList<>();
        String after = null;
        do {
            Api.Response page = api.get("/blackboard/jobs?functionBlockId=" + echo + "&status=pending&limit=5"
                    + (after == null ? "" : "&after=" + after));
            assertThat(page.status()).as(page.toString()).isEqualTo(200);
            page.at("/jobs").valueStream().forEach(j -> {
                assertThat(seen.add(id(j))).isTrue();
                order.add(id(j));
            });
            after = page.at("/next").isNull() ? null : page.at("/next").asString();
        } while (after != null);

        assertThat(order).containsExactlyElementsOf(echoes);
        assertThat(api.get("/blackboard/jobs?correlationId=wf-9").at("/jobs").size()).isEqualTo(1);
        assertThat(api.get("/blackboard/jobs?status=POLLED").at("/jobs").size()).isZero();
        assertProblem(api.get("/blackboard/jobs?status=lost"), 400, "lost");
        assertProblem(api.get("/blackboard/jobs?after=garbage"), 400, "cursor");
        assertProblem(api.get("/blackboard/jobs?limit=0"), 400, "limit");
        assertProblem(api.get("/blackboard/jobs?workerId=nope"), 400, "workerId");
    }

    @Test
    void anUnknownJobIs404() {
        assertProblem(api.get("/blackboard/jobs/" + UUID.randomUUID()), 404, "does not exist");
        assertProblem(api.post("/blackboard/jobs/" + UUID.randomUUID() + "/cancel", null), 404, "does not exist");
        assertProblem(api.get("/blackboard/jobs/" + UUID.randomUUID() + "/events"), 404, "does not exist");
    }
}
