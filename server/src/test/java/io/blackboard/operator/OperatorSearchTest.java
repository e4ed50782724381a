package io.blackboard.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** GET /operator/search: every form of the query, its limit, bad input and who may ask. */
class OperatorSearchTest extends IntegrationTest {

    UUID cisco;
    UUID ciscoTwo;
    UUID juniper;
    UUID retired;
    UUID echo;

    @BeforeEach
    void fleet() {
        cisco = registerWorker(Map.of("name", "cisco-ios-01", "concurrency", 5,
                "labels", Map.of("site", "a", "vendor", "cisco")));
        ciscoTwo = registerWorker(Map.of("name", "Cisco-IOS-02", "labels", Map.of("site", "b", "vendor", "cisco")));
        juniper = registerWorker(Map.of("name", "juniper-02", "labels", Map.of("site", "a")));
        retired = registerWorker(Map.of("name", "cisco-old", "labels", Map.of("site", "a")));
        assertThat(api.delete("/workers/" + retired).status()).isEqualTo(204);
        echo = registerBlocks(cisco, List.of(block("echo", "1.0.0"))).getFirst();
    }

    @Test
    void findsAJobOrAWorkerByItsId() {
        UUID job = job("wf-1");

        JsonNode byJob = search(job.toString()).body();
        assertThat(ids(byJob.get("jobs"))).containsExactly(job.toString());
        assertThat(byJob.at("/jobs/0/matchedBy").asString()).isEqualTo("id");
        assertThat(byJob.at("/jobs/0/functionBlock").asString()).isEqualTo("echo");
        assertThat(byJob.get("workers")).isEmpty();

        JsonNode byWorker = search(juniper.toString().toUpperCase()).body();
        assertThat(ids(byWorker.get("workers"))).containsExactly(juniper.toString());
        assertThat(byWorker.get("jobs")).isEmpty();
        assertThat(ids(search(retired.toString()).body().get("workers"))).as("deleted workers are found")
                .containsExactly(retired.toString());
        assertThat(search(UUID.randomUUID().toString()).body().get("jobs")).isEmpty();
    }

    @Test
    void findsTheJobsOfACorrelationIdExactlyInCreationOrder() {
        UUID first = job("wf-1");
        UUID second = job("wf-1");
        job("wf-10");

        JsonNode found = search("wf-1").body();
        assertThat(ids(found.get("jobs"))).containsExactly(first.toString(), second.toString());
        assertThat(found.at("/jobs/0/matchedBy").asString()).isEqualTo("correlationId");
        assertThat(found.at("/jobs/0/correlationId").asString()).isEqualTo("wf-1");
        assertThat(search("wf-").body().get("jobs")).as("exact, not a prefix").isEmpty();
        assertThat(search("WF-1").body().get("jobs")).as("exact, case too").isEmpty();
        assertThat(ids(api.get("/operator/search?q=wf-1&limit=1").body().get("jobs"))).containsExactly(first.toString());
    }

    @Test
    void findsACorrelationIdThatLooksLikeAnIdOrALabel() {
        String run = UUID.randomUUID().toString();
        UUID ofRun = job(run);
        UUID ofBase64 = job("d2YtNDI=");

        assertThat(ids(search(run).body().get("jobs"))).containsExactly(ofRun.toString());
        assertThat(ids(search("d2YtNDI=").body().get("jobs"))).containsExactly(ofBase64.toString());
    }

    @Test
    void findsWorkersByTheStartOfTheirNameInAnyCaseLiveOnesFirst() {
        JsonNode found = search("CISCO").body();
        assertThat(names(found.get("workers"))).containsExactly("cisco-ios-01", "Cisco-IOS-02", "cisco-old");
        assertThat(found.at("/workers/2/deletedAt").isNull()).isFalse();
        assertThat(found.at("/workers/0/matchedBy").asString()).isEqualTo("name");
        assertThat(found.at("/workers/0/labels/vendor").asString()).isEqualTo("cisco");
        assertThat(names(search("cisco-ios-").body().get("workers"))).containsExactly("cisco-ios-01", "Cisco-IOS-02");
        assertThat(search("ios").body().get("workers")).as("a prefix, not a substring").isEmpty();
        assertThat(search("cisco%").body().get("workers")).as("no wildcards").isEmpty();
        assertThat(names(api.get("/operator/search?q=cisco&limit=2").body().get("workers"))).hasSize(2);
    }

    @Test
    void findsWorkersByALabel() {
        assertThat(names(search("site=a").body().get("workers"))).containsExactly("cisco-ios-01", "juniper-02",
                "cisco-old");
        assertThat(names(search("vendor = cisco").body().get("workers"))).containsExactly("cisco-ios-01",
                "Cisco-IOS-02");
        assertThat(search("site=a").body().at("/workers/0/matchedBy").asString()).isEqualTo("label");
        assertThat(search("site=z").body().get("workers")).isEmpty();
        assertThat(search("site=").body().get("workers")).as("an empty value is a value").isEmpty();
    }

    @Test
    void findsTheLatestFailuresOfAReasonInAnyCase() {
        UUID reported = job("wf-1");
        UUID held = job("wf-1");
        job("wf-1");
        api.post("/blackboard/job", Map.of("workerId", cisco, "limit", 2));
        api.post("/blackboard/job/result", Map.of("jobId", reported, "workerId", cisco, "status", "FAILURE",
                "error", Map.of("message", "refused")));
        api.delete("/workers/" + cisco); // the job it still holds fails with WORKER_DELETED
        JsonNode deleted = search("worker_deleted").body();
        assertThat(ids(deleted.get("jobs"))).containsExactly(held.toString());
        assertThat(deleted.at("/jobs/0/matchedBy").asString()).isEqualTo("failureReason");
        assertThat(deleted.at("/jobs/0/failureReason").asString()).isEqualTo("WORKER_DELETED");
        assertThat(ids(search("WORKER_REPORTED").body().get("jobs"))).containsExactly(reported.toString());
        assertThat(search("STUCK_TIMEOUT").body().get("jobs")).isEmpty();
    }

    @Test
    void refusesBadInputAndCallersWhoAreNotOperators() {
        assertProblem(api.get("/operator/search"), 400, "q");
        assertProblem(search("   "), 400, "Search for something");
        assertProblem(search("=a"), 400, "key=value");
        assertProblem(search("x".repeat(201)), 400, "q");
        assertProblem(api.get("/operator/search?q=a&limit=0"), 400, "limit");
        assertProblem(api.get("/operator/search?q=a&limit=101"), 400, "limit");
        assertProblem(api.get("/operator/search?q=a&limit=many"), 400, "limit");
        assertThat(api.as(null).get("/operator/search?q=a").status()).isEqualTo(401);
        assertThat(api.as("test-engine").get("/operator/search?q=a").status()).isEqualTo(403);
        assertThat(api.as("test-operator").get("/operator/search?q=a").status()).isEqualTo(200);
    }

    private UUID job(String correlationId) {
        Api.Response created = api.post("/blackboard/jobs",
                Map.of("functionBlockId", echo, "type", "EXECUTE", "correlationId", correlationId));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return UUID.fromString(created.at("/id").asString());
    }

    private Api.Response search(String q) {
        Api.Response response = api.get("/operator/search?q=" + URLEncoder.encode(q, StandardCharsets.UTF_8));
        assertThat(response.status()).as(response.toString()).isIn(200, 400);
        return response;
    }

    private static List<String> ids(JsonNode list) {
        return StreamSupport.stream(list.spliterator(), false).map(node -> node.get("id").asString()).toList();
    }

    private static List<String> names(JsonNode list) {
        return StreamSupport.stream(list.spliterator(), false).map(node -> node.get("name").asString()).toList();
    }
}
