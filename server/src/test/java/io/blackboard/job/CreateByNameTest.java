package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** An engine names the function block by name and version or range (issue 24): the newest registered match. */
class CreateByNameTest extends BlackboardTest {

    private UUID v100;
    private UUID v120;
    private UUID v200;

    @BeforeEach
    void registerVersions() {
        worker = registerWorker("worker");
        // registered in this order: 2.0.0 is the newest
        List<UUID> ids = registerBlocks(worker, List.of(block("echo", "1.0.0"), block("echo", "1.2.0"),
                block("echo", "2.0.0"), block("other", "1.5.0")));
        v100 = ids.get(0);
        v120 = ids.get(1);
        v200 = ids.get(2);
    }

    @Test
    void theNewestRegisteredVersionInTheRangeIsTaken() {
        assertThat(blockOf(named("echo", "1.0.0"))).isEqualTo(v100);
        assertThat(blockOf(named("echo", "^1"))).isEqualTo(v120);
        assertThat(blockOf(named("echo", ">=1.0 <1.2"))).isEqualTo(v100);
        assertThat(blockOf(named("echo", null))).as("any version").isEqualTo(v200);
        UUID newer = registerBlocks(worker, List.of(block("echo", "1.1.0"))).getFirst();
        assertThat(blockOf(named("echo", "1.x"))).as("newest registered, not highest").isEqualTo(newer);
    }

    @Test
    void aBatchMayMixIdsAndNames() {
        Api.Response response = api.post("/blackboard/jobs", List.of(
                Map.of("functionBlockId", v100, "type", "EXECUTE"),
                Map.of("functionBlockName", "echo", "functionBlockVersion", "~2.0", "type", "EXECUTE")));
        assertThat(response.status()).as(response.toString()).isEqualTo(201);
        assertThat(response.at("/0/functionBlockId").asString()).isEqualTo(v100.toString());
        assertThat(response.at("/1/functionBlockId").asString()).isEqualTo(v200.toString());
    }

    @Test
    void aKeyedRepeatIsTheSameJobAfterANewerVersionIsRegistered() {
        Map<String, Object> create = new HashMap<>(Map.of("functionBlockName", "echo", "functionBlockVersion", "^1",
                "type", "EXECUTE", "idempotencyKey", "wf-1/echo"));
        Api.Response first = api.post("/blackboard/jobs", create);
        registerBlocks(worker, List.of(block("echo", "1.9.0")));

        Api.Response again = api.post("/blackboard/jobs", create);

        assertThat(again.status()).as(again.toString()).isEqualTo(200);
        assertThat(again.at("/id").asString()).isEqualTo(first.at("/id").asString());
        assertThat(again.at("/functionBlockId").asString()).isEqualTo(v120.toString());
    }

    @Test
    void whatMatchesNothingOrIsAmbiguousIsRefused() {
        assertProblem(named("nope", null), 422, "no registered function block is named nope");
        assertProblem(named("echo", "^3"), 422, "with a version in ^3");
        assertProblem(named("echo", "^x.1"), 400, "functionBlockVersion");
        assertProblem(api.post("/blackboard/jobs", Map.of("functionBlockId", v100, "functionBlockName", "echo",
                "type", "EXECUTE")), 400, "not both");
        assertProblem(api.post("/blackboard/jobs", Map.of("type", "EXECUTE")), 400, "functionBlockId");
        assertProblem(api.post("/blackboard/jobs", Map.of("functionBlockId", v100, "functionBlockVersion", "1.0.0",
                "type", "EXECUTE")), 400, "goes with functionBlockName");
        assertThat(jdbc.sql("select count(*) from job").query(Long.class).single()).isZero();
    }

    private Api.Response named(String name, String version) {
        Map<String, Object> body = new HashMap<>(Map.of("functionBlockName", name, "type", "EXECUTE"));
        if (version != null) {
            body.put("functionBlockVersion", version);
        }
        return api.post("/blackboard/jobs", body);
    }

    private static UUID blockOf(Api.Response created) {
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return UUID.fromString(created.at("/functionBlockId").asString());
    }
}
