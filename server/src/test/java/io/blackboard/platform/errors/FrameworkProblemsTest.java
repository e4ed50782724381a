package io.blackboard.platform.errors;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
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
}
