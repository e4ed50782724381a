package io.blackboard.platform.errors;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Errors Spring MVC raises before a controller runs are problems with a type, like ours. */
class FrameworkProblemsTest extends IntegrationTest {

    @Test
    void anUnknownPathIsANotFoundProblem() {
        Api.Response response = api.get("/no-such-thing");
        assertThat(response.status()).as(response.toString()).isEqualTo(404);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.at("/type").asString()).isEqualTo("/problems/not-found");
    }

    @Test
    void aWrongMethodIsAMethodNotAllowedProblem() {
        Api.Response response = api.put("/blackboard/jobs", "[]");
        assertThat(response.status()).as(response.toString()).isEqualTo(405);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.at("/type").asString()).isEqualTo("/problems/method-not-allowed");
    }

    /**
     * Issue 28's sweep: a multipart body without a boundary made the multipart resolver throw,
     * and a form body whose parameter names hold line breaks made Spring Security's firewall
     * throw; both were 500s. Each is now a 4xx problem (an OJS error under /ojs), on endpoints
     * that take a body and on one that takes none, and nothing changes.
     */
    @Test
    void aMultipartOrFormBodyIsAClientErrorNeverA500() throws Exception {
        String boundary = "----blackboard";
        String body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb\r\n--" + boundary
                + "--\r\n";
        for (String path : List.of("/blackboard/jobs", "/workers/register", "/blackboard/job", "/ojs/v1/jobs",
                "/workers/cleanup")) {
            for (String type : List.of("multipart/form-data; boundary=" + boundary, "multipart/form-data",
                    "application/x-www-form-urlencoded")) {
                HttpRequest request = HttpRequest.newBuilder(URI.create(api.baseUrl() + path))
                        .header("Authorization", "Bearer " + Api.ALL_ROLES).header("Content-Type", type)
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
                try (HttpClient client = HttpClient.newHttpClient()) {
                    HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
                    String what = path + " as " + type + ": " + response.statusCode() + " " + response.body();
                    if (path.equals("/workers/cleanup")) {
                        assertThat(response.statusCode()).as(what).isLessThan(500); // it reads no body
                    } else {
                        assertThat(response.statusCode()).as(what).isIn(400, 415);
                        assertThat(response.headers().firstValue("Content-Type").orElse("")).as(what)
                                .startsWith(path.startsWith("/ojs") ? "application/openjobspec+json"
                                        : "application/problem+json");
                    }
                }
            }
        }
        assertThat(count("job") + count("worker")).isZero();
    }

    /**
     * Found by ContractTest: a path Spring Security's firewall refuses (an encoded percent,
     * semicolon or line break) was answered with Spring Boot's own error JSON, and one Tomcat
     * refuses itself (a NUL, a request line longer than its header buffer) with Tomcat's HTML
     * page. Each is a 400 problem now, and nothing changes.
     */
    @Test
    void aPathRefusedBeforeSpringMvcIsABadRequestProblem() {
        String longId = "%C3%BC".repeat(5_000);
        for (String path : List.of("/workers/%25", "/workers/%27%3B/events", "/blackboard/jobs/line%0D%0AX-I",
                "/workers/%00/function-blocks", "/blackboard/dead-letters/" + longId + "/rerun")) {
            Api.Response response = path.endsWith("/rerun") ? api.post(path, null) : api.get(path);
            String what = path.substring(0, Math.min(60, path.length())) + ": " + response;
            assertThat(response.status()).as(what).isEqualTo(400);
            assertThat(response.contentType()).as(what).startsWith("application/problem+json");
            assertThat(response.at("/status").asInt()).as(what).isEqualTo(400);
            assertThat(response.at("/type").asString()).as(what).isEqualTo("/problems/invalid-request");
            assertThat(response.raw()).as(what).doesNotContain("Tomcat").doesNotContain("<html");
        }
        assertThat(count("job") + count("worker")).isZero();
    }

    /**
     * Found by ContractTest: {@code GET /operator/search?q=a%00b} was a 500, PostgreSQL refusing
     * the NUL. A query value holding one is a 400 problem wherever it is sent, and nothing changes.
     */
    @Test
    void aNulInAQueryValueIsABadRequestProblemNotA500() {
        for (String path : List.of("/operator/search?q=a%00b", "/blackboard/jobs?correlationId=%00",
                "/workers?state=ONLINE%00", "/blackboard/dead-letters?correlationId=run%00")) {
            Api.Response response = api.get(path);
            assertThat(response.status()).as(path + ": " + response).isEqualTo(400);
            assertThat(response.contentType()).as(path).startsWith("application/problem+json");
            assertThat(response.at("/type").asString()).as(path).isEqualTo("/problems/invalid-request");
        }
        assertThat(api.get("/operator/search?q=a%0Ab").status()).as("other control characters stay allowed")
                .isEqualTo(200);
        assertThat(count("job") + count("worker")).isZero();
    }
}
