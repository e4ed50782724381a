package io.blackboard.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.util.unit.DataSize;

@ExtendWith(OutputCaptureExtension.class)
class SecurityTest extends IntegrationTest {

    record Registered(UUID id, String token) {
    }

    Registered register(String name) {
        Api.Response response = api.as("test-worker").post("/workers/register", Map.of("name", name));
        assertThat(response.status()).as(response.toString()).isEqualTo(201);
        return new Registered(UUID.fromString(response.at("/id").asString()), response.at("/token").asString());
    }

    @Test
    void withoutATokenEverythingButHealthIs401() {
        Api anonymous = api.as(null);
        assertThat(anonymous.get("/actuator/health").status()).isEqualTo(200);
        Api.Response denied = anonymous.get("/workers");
        assertProblem(denied, 401, "bearer token");
        assertThat(denied.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
        assertProblem(anonymous.post("/blackboard/jobs", Map.of()), 401, "bearer token");
        assertProblem(anonymous.post("/workers/register", Map.of("name", "w")), 401, "bearer token");
        assertProblem(api.as("not-a-token").get("/workers"), 401, "unknown");
        assertProblem(api.as("bbw_forged").post("/workers/" + UUID.randomUUID() + "/ping", null), 401, "unknown");
        assertThat(count("worker")).isZero();
    }

    @Test
    void noCallOpensASessionAndEveryAnswerCarriesTheSecurityHeaders() {
        Registered worker = register("stateless");
        List<Api.Response> answers = List.of(
                api.as(worker.token()).post("/workers/" + worker.id() + "/ping", Map.of("activeJobIds", List.of())),
                api.as("test-operator").get("/workers"),
                api.as("test-engine").get("/workers"),
                api.as(null).get("/workers"),
                // what does not ask for JSON (a scrape, a browser, curl) is where a request cache
                // or a session-backed context would open a session
                api.as(null).getText("/workers"),
                api.as(null).getText("/actuator/prometheus"),
                api.as("not-a-token").getText("/workers"),
                api.as("test-operator").getText("/actuator/prometheus"),
                api.as(null).getText("/"),
                api.as(null).getText("/dashboard.js"),
                api.as(null).get("/actuator/health"));
        assertThat(answers).extracting(Api.Response::status)
                .containsExactly(200, 200, 403, 401, 401, 401, 401, 200, 200, 200, 200);
        for (Api.Response answer : answers) {
            assertThat(answer.headers().allValues("Set-Cookie")).as(answer.toString()).isEmpty();
            assertThat(answer.headers().firstValue("X-Content-Type-Options")).as(answer.toString()).hasValue("nosniff");
            assertThat(answer.headers().firstValue("X-Frame-Options")).as(answer.toString()).hasValue("DENY");
            assertThat(answer.headers().firstValue("Cache-Control").orElse("")).as(answer.toString()).contains("no-store");
        }
        // the worker token still acts for its worker only: the authentication is per request
        assertProblem(api.as(worker.token()).post("/workers/" + UUID.randomUUID() + "/ping", null), 403, "may not");
    }

    @Test
    void thereIsNoGeneratedPasswordUser(@Autowired ApplicationContext context) {
        // Spring Boot's default would add a user with a generated password and warn at every start
        assertThat(context.getBeansOfType(UserDetailsService.class)).isEmpty();
    }

    @Test
    void aBasicOrMalformedAuthorizationHeaderIs401() {
        Api.Response response = api.as(null).send("GET", "/workers", null);
        assertThat(response.status()).isEqualTo(401);
    }

    @Test
    void eachRoleReachesOnlyWhatItIsFor() {
        Registered worker = register("w");
        Api engine = api.as("test-engine");
        Api operator = api.as("test-operator");
        Api registrar = api.as("test-worker");

        assertThat(engine.get("/function-blocks").status()).isEqualTo(200);
        assertThat(engine.get("/blackboard/jobs").status()).isEqualTo(200);
        assertThat(engine.get("/blackboard/results").status()).isEqualTo(200);
        assertProblem(engine.get("/workers"), 403, "may not");
        assertProblem(engine.delete("/workers/" + worker.id()), 403, "may not");
        assertProblem(engine.post("/workers/register", Map.of("name", "x")), 403, "may not");
        assertProblem(engine.post("/workers/" + worker.id() + "/ping", null), 403, "may not");

        assertThat(operator.get("/workers").status()).isEqualTo(200);
        assertThat(operator.get("/blackboard/jobs").status()).isEqualTo(200);
        assertThat(operator.get("/actuator/metrics").status()).isEqualTo(200);
        assertProblem(operator.post("/blackboard/jobs", Map.of()), 403, "may not");

        assertProblem(registrar.get("/workers"), 403, "may not");
        assertProblem(registrar.post("/blackboard/jobs", Map.of()), 403, "may not");
        assertProblem(registrar.post("/workers/" + worker.id() + "/ping", null), 403, "may not");

        Api bound = api.as(worker.token());
        assertProblem(bound.get("/workers"), 403, "may not");
        assertProblem(bound.post("/blackboard/jobs", Map.of()), 403, "may not");
        assertProblem(bound.post("/workers/register", Map.of("name", "x")), 403, "may not");
        assertProblem(bound.post("/workers/cleanup-offline", null), 403, "may not");
        assertThat(count("worker")).isEqualTo(1);
    }

    @Test
    void aWorkerTokenActsForItsOwnWorkerOnly() {
        Registered me = register("me");
        Registered other = register("other");
        Api mine = api.as(me.token());
        jdbc.sql("update worker set last_seen_at = now() - interval '1 hour'").update();
        String othersRow = workerRow(other.id());

        assertThat(mine.post("/workers/" + me.id() + "/ping", null).status()).isEqualTo(200);
        assertThat(mine.get("/workers/" + me.id()).status()).isEqualTo(200);
        List<Map<String, Object>> blocks = List.of(Map.of("name", "echo", "version", "1"));
        assertThat(mine.post("/function-blocks/register", Map.of("workerId", me.id(), "functionBlocks", blocks))
                .status()).isEqualTo(200);
        assertThat(mine.post("/blackboard/job", Map.of("workerId", me.id())).status()).isEqualTo(200);

        assertProblem(mine.post("/workers/" + other.id() + "/ping", null), 403, "may not");
        assertProblem(mine.post("/workers/" + other.id() + "/unregister", null), 403, "may not");
        assertProblem(mine.get("/workers/" + other.id() + "/jobs"), 403, "may not");
        assertProblem(mine.post("/function-blocks/register", Map.of("workerId", other.id(), "functionBlocks",
                blocks)), 403, "issued to");
        assertProblem(mine.post("/blackboard/job", Map.of("workerId", other.id())), 403, "issued to");
        assertProblem(mine.post("/blackboard/job/result", Map.of("jobId", UUID.randomUUID(),
                "workerId", other.id(), "status", "SUCCESS")), 403, "issued to");
        assertProblem(mine.post("/blackboard/job/results", List.of(
                Map.of("jobId", UUID.randomUUID(), "workerId", me.id(), "status", "SUCCESS"),
                Map.of("jobId", UUID.randomUUID(), "workerId", other.id(), "status", "SUCCESS"))), 403, "issued to");
        assertProblem(mine.post("/blackboard/job/next", Map.of("workerId", other.id())), 403, "issued to");

        assertThat(workerRow(other.id())).isEqualTo(othersRow);
        assertThat(api.as("test-operator").post("/workers/" + other.id() + "/ping", null).status())
                .as("operators act for any worker").isEqualTo(200);
    }

    @Test
    void onlyTheTokensHashIsStoredAndADeletedWorkersTokenIsToldItWasDeleted() {
        Registered me = register("me");

        byte[] stored = jdbc.sql("select token_hash from worker where id = :id").param("id", me.id())
                .query(byte[].class).single();
        assertThat(stored).isEqualTo(Tokens.sha256(me.token()));
        String everything = jdbc.sql("select row_to_json(w)::text from worker w").query(String.class).single();
        assertThat(everything).doesNotContain(me.token().substring(4))
                .doesNotContain(HexFormat.of().formatHex(me.token().getBytes()));
        assertThat(me.token()).startsWith("bbw_").hasSizeGreaterThan(40);

        assertThat(api.as("test-operator").delete("/workers/" + me.id()).status()).isEqualTo(204);
        assertProblem(api.as(me.token()).post("/workers/" + me.id() + "/ping", null), 404, "register again");
        Registered other = register("other");
        assertProblem(api.as(me.token()).post("/workers/" + other.id() + "/ping", null), 403, "may not");
        assertProblem(api.as("bbw_" + "x".repeat(43)).post("/workers/" + me.id() + "/ping", null), 401, "unknown");
    }

    @Test
    void withNoTokensConfiguredOnePerRoleIsGeneratedAndLoggedOnce(CapturedOutput output) {
        RoleTokens tokens = new RoleTokens(new SecurityProperties(List.of(), List.of(), List.of(), List.of(),
                DataSize.ofMegabytes(1), 32, 1000), false);

        assertThat(tokens.rolesOf("")).isEmpty();
        assertThat(tokens.rolesOf("test-all")).isEmpty();
        String line = output.getAll().lines().filter(l -> l.contains("tokens generated")).findFirst().orElseThrow();
        String operator = line.replaceAll(".*operator=([A-Za-z0-9_-]+).*", "$1");
        assertThat(tokens.rolesOf(operator)).containsExactly(RoleTokens.Role.OPERATOR);
        String ojsWorker = line.replaceAll(".*ojs-worker=([A-Za-z0-9_-]+).*", "$1");
        assertThat(tokens.rolesOf(ojsWorker)).containsExactly(RoleTokens.Role.OJS_WORKER);
    }

    @Test
    void onTheEmbeddedDatabaseWithNoTokensConfiguredTheDevelopmentTokensAreInForce(CapturedOutput output) {
        RoleTokens tokens = new RoleTokens(new SecurityProperties(List.of(), List.of(), List.of(), List.of(),
                DataSize.ofMegabytes(1), 32, 1000), true);

        assertThat(tokens.rolesOf("dev-worker-token")).containsExactly(RoleTokens.Role.WORKER);
        assertThat(tokens.rolesOf("dev-engine-token")).containsExactly(RoleTokens.Role.ENGINE);
        assertThat(tokens.rolesOf("dev-operator-token")).containsExactly(RoleTokens.Role.OPERATOR);
        assertThat(tokens.rolesOf("dev-ojs-worker-token")).containsExactly(RoleTokens.Role.OJS_WORKER);
        assertThat(output.getAll()).contains("development tokens are in force");

        RoleTokens configured = new RoleTokens(new SecurityProperties(List.of("mine"), List.of(), List.of(), List.of(),
                DataSize.ofMegabytes(1), 32, 1000), true);
        assertThat(configured.rolesOf("dev-operator-token")).as("configured tokens replace them").isEmpty();
    }

    @Test
    void aTokenListedUnderSeveralRolesHoldsThemAll() {
        RoleTokens tokens = new RoleTokens(new SecurityProperties(List.of("a", " b "), List.of("b"), List.of(""), List.of("b"),
                DataSize.ofMegabytes(1), 32, 1000), false);

        assertThat(tokens.rolesOf("b")).containsExactlyInAnyOrder(RoleTokens.Role.WORKER, RoleTokens.Role.ENGINE,
                RoleTokens.Role.OJS_WORKER);
        assertThat(tokens.rolesOf("a")).containsExactly(RoleTokens.Role.WORKER);
        assertThat(tokens.rolesOf("")).isEmpty();
    }

    private String workerRow(UUID id) {
        return jdbc.sql("select row_to_json(w)::text from worker w where id = :id").param("id", id)
                .query(String.class).single();
    }
}
