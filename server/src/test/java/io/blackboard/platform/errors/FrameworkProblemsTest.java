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
}
