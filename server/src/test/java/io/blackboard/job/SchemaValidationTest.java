package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.blackboard.Api;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SchemaValidationTest extends BlackboardTest {

    static final Map<String, Object> PARAMS = Map.of("type", "object", "required", List.of("host"),
            "properties", Map.of("host", Map.of("type", "string", "minLength", 1),
                    "port", Map.of("type", "integer", "maximum", 65535)));
    static final Map<String, Object> RESULT = Map.of("type", "object", "required", List.of("lines"),
            "properties", Map.of("lines", Map.of("type", "integer")));

    UUID backup;

    @BeforeEach
    void setUp() {
        worker = registerWorker(Map.of("name", "w", "concurrency", 5));
        backup = registerBlocks(worker, List.of(Map.of("name", "backup", "version", "1",
                "paramsJsonSchema", PARAMS, "resultDataJsonSchema", RESULT))).getFirst();
    }

    @Test
    void paramsThatBreakTheSchemaAre422NamingTheFieldAndNothingIsCreated() {
        Api.Response response = api.post("/blackboard/jobs", List.of(
                Map.of("functionBlockId", backup, "type", "EXECUTE", "payload", Map.of("host", "r1")),
                Map.of("functionBlockId", backup, "type", "EXECUTE", "payload", Map.of("host", "r2", "port", 70000))));

        assertProblem(response, 422, "[1] payload");
        assertThat(response.at("/detail").asString()).contains("/port").contains("paramsJsonSchema");
        assertThat(response.at("/violations/0").asString()).contains("port");
        assertProblem(api.post("/blackboard/jobs", Map.of("functionBlockId", backup, "type", "EXECUTE")), 422,
                "host");
        assertThat(count("job")).isZero();
    }

    @Test
    void validParamsAreAccepted() {
        assertThat(createJob(backup, Map.of("payload", Map.of("host", "r1", "port", 22)))).isNotNull();
    }

    @Test
    void aResultThatBreaksTheSchemaIs422AndTheJobStaysPolledForACorrectedPush() {
        UUID job = createJob(backup, Map.of("payload", Map.of("host", "r1")));
        claim(worker, 1);
        String before = row(job);

        assertProblem(push(job, worker, Map.of("result", Map.of("lines", "many"))), 422, "/lines");
        assertThat(row(job)).isEqualTo(before);
        Api.Response batch = api.post("/blackboard/job/results", List.of(Map.of("jobId", job, "workerId", worker,
                "status", "SUCCESS", "result", Map.of())));
        assertThat(batch.at("/0/status").asInt()).isEqualTo(422);
        assertThat(row(job)).isEqualTo(before);

        assertThat(push(job, worker, Map.of("result", Map.of("lines", 120))).status()).isEqualTo(200);
        assertThat(job(job).get("outcome").asString()).isEqualTo("SUCCESS");
    }

    /**
     * A batch lands what needs no check at once (failures, blocks without a result schema), checks
     * only the successes on blocks with one, and answers each item on its own; sent again, the
     * items that landed answer 200 as repeats.
     */
    @Test
    void aBatchChecksOnlyTheResultsOfBlocksWithASchemaAndAnswersEachItemOnItsOwn() {
        Four four = fourClaimed();
        UUID valid = four.valid();
        UUID invalid = four.invalid();
        UUID failed = four.failed();
        UUID free = four.free();
        String before = row(invalid);
        List<Map<String, Object>> pushes = four.pushes();

        Api.Response response = api.post("/blackboard/job/results", pushes);

        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        assertThat(response.body().valueStream().map(i -> i.get("status").asInt()).toList())
                .containsExactly(200, 422, 200, 200);
        assertThat(response.at("/1/problem/detail").asString()).contains("/lines");
        assertThat(job(valid).at("/result/lines").asInt()).isEqualTo(3);
        assertThat(job(failed).get("failureReason").asString()).isEqualTo("WORKER_REPORTED");
        assertThat(job(free).at("/result/any").asString()).isEqualTo("shape");
        assertThat(row(invalid)).as("a refused result changes nothing").isEqualTo(before);
        assertThat(jdbc.sql("select count(*) from job_event where kind = 'PUSHED'").query(Long.class).single())
                .isEqualTo(3);

        Api.Response again = api.post("/blackboard/job/results", pushes);
        assertThat(again.body().valueStream().map(i -> i.get("status").asInt()).toList())
                .as("the same batch again: repeats are 200, the bad result still 422")
                .containsExactly(200, 422, 200, 200);
        assertThat(jdbc.sql("select count(*) from job_event where kind = 'PUSHED'").query(Long.class).single())
                .isEqualTo(3);
    }

    /**
     * Push + next does the same: its first push statement lands what needs no check, the successes on a block with a schema are checked, each is answered on its
     * own, and the claim goes on.
     */
    @Test
    void pushAndNextChecksOnlyTheResultsOfBlocksWithASchemaAndStillClaims() {
        Four four = fourClaimed();
        UUID next = createJob(four.plain(), Map.of());
        String before = row(four.invalid());

        Api.Response response = api.post("/blackboard/job/next",
                Map.of("workerId", worker, "limit", 2, "results", four.pushes()));

        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        assertThat(response.body().get("results").valueStream().map(i -> i.get("status").asInt()).toList())
                .containsExactly(200, 422, 200, 200);
        assertThat(response.at("/results/1/problem/detail").asString()).contains("/lines");
        assertThat(job(four.valid()).at("/result/lines").asInt()).isEqualTo(3);
        assertThat(job(four.failed()).get("failureReason").asString()).isEqualTo("WORKER_REPORTED");
        assertThat(job(four.free()).at("/result/any").asString()).isEqualTo("shape");
        assertThat(row(four.invalid())).as("a refused result changes nothing").isEqualTo(before);
        assertThat(response.body().get("jobs").valueStream().map(j -> j.get("id").asString()).toList())
                .as("the slots the three freed, one job left to claim").containsExactly(next.toString());
    }

    @Test
    void aReportedFailureIsNotHeldToTheResultSchema() {
        UUID job = createJob(backup, Map.of("payload", Map.of("host", "r1")));
        claim(worker, 1);

        assertThat(push(job, worker, Map.of("status", "FAILURE", "error", Map.of("message", "no route"))).status())
                .isEqualTo(200);
    }

    @Test
    void onlyAnExecuteResultIsHeldToTheResultSchema() {
        UUID acquire = createJob(backup, Map.of("type", "ACQUIRE"));
        UUID rollback = createJob(backup, Map.of("type", "ROLLBACK"));
        UUID execute = createJob(backup, Map.of("type", "EXECUTE"));
        assertThat(claim(worker, 3)).containsExactlyInAnyOrder(acquire, rollback, execute);

        assertThat(push(acquire, worker, Map.of("acquires", List.of(Map.of("device", "r1")))).status())
                .as("an ACQUIRE answers acquires, not the block's result").isEqualTo(200);
        assertThat(push(rollback, worker, Map.of("result", Map.of("restored", true))).status()).isEqualTo(200);
        assertThat(push(execute, worker, Map.of("result", Map.of("restored", true))).status()).isEqualTo(422);
        Api.Response batch = api.post("/blackboard/job/results", List.of(
                Map.of("jobId", execute, "workerId", worker, "status", "SUCCESS", "result", Map.of("lines", "many"))));
        assertThat(batch.at("/0/status").asInt()).isEqualTo(422);
        assertThat(job(acquire).at("/outcome").asString()).isEqualTo("SUCCESS");
        assertThat(job(execute).at("/status").asString()).isEqualTo("POLLED");
    }

    @Test
    void aSchemaThatIsNotValidJsonSchemaIsRefusedAtRegistration() {
        assertProblem(registerWith(Map.of("type", "banana")), 422, "not a valid JSON Schema");
        assertProblem(registerWith(Map.of("type", "object", "required", "host")), 422, "not a valid JSON Schema");
        assertProblem(registerWith(Map.of("$schema", "https://example.com/my-dialect")), 422, "dialect");
        assertProblem(registerWith(List.of(1)), 422, "JSON Schema");
        assertThat(count("function_block")).isEqualTo(1);
    }

    @Test
    void olderDraftsAreUnderstood() {
        Api.Response response = registerWith(Map.of("$schema", "http://json-schema.org/draft-07/schema#",
                "type", "object", "definitions", Map.of()));
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
    }

    @Test
    void remoteReferencesAreNeverFetched() throws Exception {
        AtomicInteger fetched = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            fetched.incrementAndGet();
            byte[] schema = "{\"type\": \"object\"}".getBytes();
            exchange.sendResponseHeaders(200, schema.length);
            exchange.getResponseBody().write(schema);
            exchange.close();
        });
        server.start();
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/schema.json";
            assertProblem(registerWith(Map.of("$ref", url)), 422, "not a valid JSON Schema");
            assertThat(fetched.get()).as("requests the server made to the $ref URL").isZero();
        } finally {
            server.stop(0);
        }
    }

    private Api.Response registerWith(Object schema) {
        return api.post("/function-blocks/register", Map.of("workerId", worker, "functionBlocks", List.of(
                Map.of("name", "other", "version", "1", "paramsJsonSchema", schema))));
    }

    /** The worker's four claimed jobs and a push for each: valid, invalid and failed on the block with a result schema, one on a block without. */
    private record Four(UUID plain, UUID valid, UUID invalid, UUID failed, UUID free, List<Map<String, Object>> pushes) {
    }

    private Four fourClaimed() {
        UUID plain = registerBlocks(worker, List.of(Map.of("name", "backup", "version", "1",
                "paramsJsonSchema", PARAMS, "resultDataJsonSchema", RESULT), block("plain", "1"))).get(1);
        UUID valid = createJob(backup, Map.of());
        UUID invalid = createJob(backup, Map.of());
        UUID failed = createJob(backup, Map.of());
        UUID free = createJob(plain, Map.of());
        assertThat(claim(worker, 4)).containsExactlyInAnyOrder(valid, invalid, failed, free);
        return new Four(plain, valid, invalid, failed, free, List.of(
                Map.of("jobId", valid, "workerId", worker, "status", "SUCCESS", "result", Map.of("lines", 3)),
                Map.of("jobId", invalid, "workerId", worker, "status", "SUCCESS", "result", Map.of("lines", "many")),
                Map.of("jobId", failed, "workerId", worker, "status", "FAILURE", "error", Map.of("message", "x")),
                Map.of("jobId", free, "workerId", worker, "status", "SUCCESS", "result", Map.of("any", "shape"))));
    }
}
