package io.blackboard.functionblock;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class FunctionBlockRegistrationTest extends IntegrationTest {

    static final Map<String, Object> SCHEMA = Map.of("type", "object",
            "properties", Map.of("host", Map.of("type", "string")), "required", List.of("host"));

    static Map<String, Object> backup(Map<String, Object> schema) {
        return Map.of("name", "configBackup", "version", "2.0.0", "paramsJsonSchema", schema,
                "resultDataJsonSchema", Map.of("type", "object"), "idempotent", true, "description", "Backs up");
    }

    @Test
    void registrationReturnsEachBlockWithItsStableId() {
        UUID worker = registerWorker("w");

        Api.Response response = api.post("/function-blocks/register",
                Map.of("workerId", worker, "functionBlocks", List.of(backup(SCHEMA), block("echo", "1.0.0"))));

        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        assertThat(response.body()).hasSize(2);
        var stored = response.body().get(0);
        assertThat(stored.get("name").asString()).isEqualTo("configBackup");
        assertThat(stored.get("idempotent").asBoolean()).isTrue();
        assertThat(stored.get("pure").asBoolean()).isFalse();
        assertThat(stored.at("/paramsJsonSchema/required/0").asString()).isEqualTo("host");
        UUID id = UUID.fromString(stored.get("id").asString());
        assertThat(api.get("/function-blocks/" + id).at("/name").asString()).isEqualTo("configBackup");
    }

    @Test
    void theSameNameAndVersionFromManyWorkersIsOneBlock() {
        UUID first = registerWorker("a");
        UUID second = registerWorker("b");

        UUID a = registerBlocks(first, List.of(backup(SCHEMA))).getFirst();
        UUID b = registerBlocks(second, List.of(backup(SCHEMA))).getFirst();

        assertThat(a).isEqualTo(b);
        assertThat(count("function_block")).isEqualTo(1);
        Api.Response catalog = api.get("/function-blocks");
        assertThat(catalog.body()).hasSize(1);
        assertThat(catalog.at("/0/onlineWorkers").asInt()).isEqualTo(2);
        assertThat(catalog.at("/0/pending").asInt()).isZero();
    }

    @Test
    void aDifferentSchemaForTheSameNameAndVersionIs409AndChangesNothing() {
        UUID first = registerWorker("a");
        UUID second = registerWorker("b");
        UUID echo = registerBlocks(first, List.of(backup(SCHEMA))).getFirst();
        registerBlocks(second, List.of(block("echo", "1.0.0")));

        Map<String, Object> changed = backup(Map.of("type", "object", "required", List.of("hostname")));
        Api.Response response = api.post("/function-blocks/register",
                Map.of("workerId", second, "functionBlocks", List.of(block("ping", "1.0.0"), changed)));

        assertProblem(response, 409, "configBackup@2.0.0");
        assertThat(response.at("/functionBlockId").asString()).isEqualTo(echo.toString());
        assertThat(names(api.get("/workers/" + second + "/function-blocks"))).containsExactly("echo");
        assertThat(count("function_block")).as("ping@1.0.0 was rolled back").isEqualTo(2);
    }

    @Test
    void changedFlagsAreAConflictToo() {
        UUID worker = registerWorker("a");
        registerBlocks(worker, List.of(block("echo", "1.0.0")));

        Api.Response response = api.post("/function-blocks/register", Map.of("workerId", worker,
                "functionBlocks", List.of(Map.of("name", "echo", "version", "1.0.0", "pure", true))));

        assertProblem(response, 409, "echo@1.0.0");
    }

    @Test
    void registeringAgainReplacesTheWorkersSet() {
        UUID worker = registerWorker("w");
        registerBlocks(worker, List.of(block("echo", "1.0.0"), block("ping", "1.0.0")));

        registerBlocks(worker, List.of(block("ping", "1.0.0"), block("traceroute", "1.0.0")));

        assertThat(names(api.get("/workers/" + worker + "/function-blocks"))).containsExactly("ping", "traceroute");
        assertThat(count("function_block")).as("blocks outlive the workers that served them").isEqualTo(3);
    }

    @Test
    void badRegistrationsAreRejectedAndStoreNothing() {
        UUID worker = registerWorker("w");

        assertProblem(api.post("/function-blocks/register", Map.of("workerId", UUID.randomUUID(),
                "functionBlocks", List.of(block("echo", "1")))), 404, "not registered");
        assertProblem(api.post("/function-blocks/register", Map.of("workerId", worker,
                "functionBlocks", List.of(Map.of("name", "echo")))), 400, "version");
        assertProblem(api.post("/function-blocks/register", Map.of("workerId", worker)), 400, "functionBlocks");
        assertProblem(api.post("/function-blocks/register", Map.of("workerId", "nope",
                "functionBlocks", List.of())), 400, "workerId");
        assertProblem(api.post("/function-blocks/register", Map.of("workerId", worker, "functionBlocks",
                List.of(Map.of("name", "echo", "version", "1", "paramsJsonSchema", "string")))), 422,
                "paramsJsonSchema");
        assertProblem(api.post("/function-blocks/register", Map.of("workerId", worker, "functionBlocks",
                List.of(block("echo", "1"), Map.of("name", "echo", "version", "1", "pure", true)))), 409, "echo@1");

        assertThat(count("function_block")).isZero();
        assertThat(count("worker_function_block")).isZero();
    }

    @Test
    void unknownFunctionBlockIs404() {
        assertProblem(api.get("/function-blocks/" + UUID.randomUUID()), 404, "not registered");
    }

    static List<String> names(Api.Response response) {
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return response.body().valueStream().map(fb -> fb.get("name").asString()).toList();
    }
}
