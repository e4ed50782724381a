package io.blackboard.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which requests the direct way takes: only those Spring MVC would read and answer as JSON in
 * UTF-8 (DirectRouteTest: Spring MVC's own answer to each accepted Accept header).
 */
class DirectRoutesTest {

    @Test
    void theAcceptHeadersForWhichSpringMvcAnswersJsonAreTheOnlyOnesAnsweredDirectly() {
        assertThat(DirectRoutes.acceptsJson(null)).isTrue();
        for (String accept : List.of("", "application/json", "*/*", "application/json, application/problem+json",
                "APPLICATION/JSON", "*/*, application/json", "application/json,*/*")) {
            assertThat(DirectRoutes.acceptsJson(accept)).as(accept).isTrue();
        }
        for (String accept : List.of("text/html", "application/problem+json",
                "application/problem+json, application/json", "application/json;q=0", "*/*, application/problem+json",
                "application/json, text/plain", "application/*")) {
            assertThat(DirectRoutes.acceptsJson(accept)).as(accept).isFalse();
        }
    }

    @Test
    void aPatternsVariableIsOneNonEmptySegment() {
        assertThat(DirectRoutes.matches("/workers/{id}/ping", "/workers/01a2011d-6ef8/ping")).isTrue();
        assertThat(DirectRoutes.matches("/blackboard/job/next", "/blackboard/job/next")).isTrue();
        for (String path : List.of("/workers//ping", "/workers/a/b/ping", "/workers/a/ping/", "/workers/a/pin",
                "/workers/a/pings", "/workers/a", "/workers/", "/worker/a/ping", "")) {
            assertThat(DirectRoutes.matches("/workers/{id}/ping", path)).as(path).isFalse();
        }
    }

    @Test
    void onlyJsonInUtf8IsReadDirectly() {
        for (String type : List.of("application/json", "Application/JSON", "application/json; charset=UTF-8",
                "application/json;charset=utf-8", "application/json; charset=\"utf-8\"")) {
            assertThat(DirectRoutes.jsonInUtf8(type)).as(type).isTrue();
        }
        for (String type : Arrays.asList(null, "", "text/plain", "application/json; charset=ISO-8859-1",
                "application/jsonx", "application/merge-patch+json", "application/json; v=2")) {
            assertThat(DirectRoutes.jsonInUtf8(type)).as(type).isFalse();
        }
    }
}
