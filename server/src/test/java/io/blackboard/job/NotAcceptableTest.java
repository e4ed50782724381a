package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A request whose answer the caller would not accept is refused (406) before anything is done:
 * no job claimed for a worker that would never see it, no job created, no push landed. What
 * Spring MVC answers in JSON is still answered to every Accept that takes JSON.
 */
class NotAcceptableTest extends BlackboardTest {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @BeforeEach
    void workerWithJobs() {
        workerServingEcho(Map.of("concurrency", 2));
    }

    @Test
    void aPollThatWouldRefuseItsAnswerClaimsNothing() throws Exception {
        UUID job = createJob(echo, Map.of());
        // more types than Spring MVC sorts (50) is a 406 of its own, the JSON among them too
        String tooMany = "application/json, " + String.join(", ", Collections.nCopies(50, "text/a"));
        for (String accept : List.of("text/html", "text/plain, image/png", "application/", "application/xml",
                tooMany)) {
            for (String path : List.of("/blackboard/job", "/blackboard/job/next")) {
                HttpResponse<String> answer = post(path, Map.of("workerId", worker, "limit", 1), accept);
                assertThat(answer.statusCode()).as(accept + " " + path + ": " + answer.body()).isEqualTo(406);
                if (!accept.equals("application/") && !accept.equals(tooMany)) { // unreadable: no type to answer in
                    assertThat(answer.headers().firstValue("Content-Type")).as("a problem, in JSON")
                            .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
                }
                assertThat(status(job)).as(accept + " " + path).isEqualTo("PENDING");
            }
        }
        assertThat(job(job).get("attempt").asInt()).as("no attempt spent").isZero();
        assertThat(claim(worker, 1)).as("the next poll that takes JSON gets it").containsExactly(job);
        assertThat(job(job).get("attempt").asInt()).isEqualTo(1);
    }

    @Test
    void aPushThatWouldRefuseItsAnswerLandsNothing() throws Exception {
        UUID job = claimedJob(echo);
        UUID next = createJob(echo, Map.of());
        Map<String, Object> push = Map.of("jobId", job, "workerId", worker, "attempt", 1, "status", "SUCCESS",
                "result", Map.of("ok", true));
        String before = row(job);

        assertThat(post("/blackboard/job/result", push, "text/html").statusCode()).isEqualTo(406);
        assertThat(post("/blackboard/job/next", Map.of("workerId", worker, "limit", 1, "results", List.of(push)),
                "text/html").statusCode()).isEqualTo(406);

        assertThat(row(job)).as("the push did not land").isEqualTo(before);
        assertThat(status(next)).as("nothing claimed").isEqualTo("PENDING");
        HttpResponse<String> landed = post("/blackboard/job/next",
                Map.of("workerId", worker, "limit", 1, "results", List.of(push)), "application/json");
        assertThat(landed.statusCode()).as(landed.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(landed.body());
        assertThat(answer.at("/results/0/status").asInt()).isEqualTo(200);
        assertThat(answer.at("/jobs/0/id").asString()).isEqualTo(next.toString());
    }

    @Test
    void aCreateThatWouldRefuseItsAnswerWritesNoJob() throws Exception {
        long jobs = count("job");
        Map<String, Object> create = Map.of("functionBlockId", echo, "type", "EXECUTE", "payload", Map.of("n", 1));

        assertThat(post("/blackboard/jobs", create, "text/html").statusCode()).isEqualTo(406);
        assertThat(post("/blackboard/jobs", List.of(create, create), "text/csv").statusCode()).isEqualTo(406);
        assertThat(count("job")).as("no job written").isEqualTo(jobs);

        for (String accept : List.of("*/*", "application/*", "application/json", "text/html, application/json;q=0.5",
                "application/problem+json, application/json")) {
            HttpResponse<String> created = post("/blackboard/jobs", create, accept);
            assertThat(created.statusCode()).as(accept + ": " + created.body()).isEqualTo(201);
            assertThat(created.headers().firstValue("Content-Type")).as(accept)
                    .hasValueSatisfying(type -> assertThat(type).contains("json"));
        }
        assertThat(count("job")).isEqualTo(jobs + 5);
    }

    @Test
    void anAnswerWithoutABodyAndTheOjsBindingAreNotRefused() throws Exception {
        HttpRequest delete = HttpRequest.newBuilder(URI.create(api.baseUrl() + "/workers/" + worker))
                .header("Accept", "text/html").header("Authorization", "Bearer " + Api.ALL_ROLES).DELETE().build();
        assertThat(CLIENT.send(delete, HttpResponse.BodyHandlers.ofString()).statusCode())
                .as("204: there is no answer to refuse").isEqualTo(204);
        HttpRequest ojs = HttpRequest.newBuilder(URI.create(api.baseUrl() + "/ojs/v1/health"))
                .header("Accept", "text/html").GET().build();
        HttpResponse<String> health = CLIENT.send(ojs, HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        assertThat(health.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/openjobspec+json"));
    }

    private HttpResponse<String> post(String path, Object body, String accept)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(api.baseUrl() + path))
                .header("Content-Type", "application/json")
                .header("Accept", accept)
                .header("Authorization", "Bearer " + Api.ALL_ROLES)
                .POST(HttpRequest.BodyPublishers.ofString(Api.json(body)))
                .build();
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
