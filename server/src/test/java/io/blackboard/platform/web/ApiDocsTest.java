package io.blackboard.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import tools.jackson.databind.JsonNode;

/** The OpenAPI document lists every endpoint the server maps, with its answers and errors. */
class ApiDocsTest extends IntegrationTest {

    @Autowired
    @Qualifier("requestMappingHandlerMapping")
    RequestMappingHandlerMapping mappings;

    /**
     * "METHOD /path" for every endpoint of our controllers, but the OJS binding's: its contract
     * is the Open Job Spec's HTTP binding, errors in OJS's envelope (docs/ojs.md), not this API's.
     */
    Set<String> mappedEndpoints() {
        Set<String> endpoints = new TreeSet<>();
        mappings.getHandlerMethods().forEach((info, handler) -> {
            if (handler.getBeanType().getPackageName().startsWith("io.blackboard")
                    && !handler.getBeanType().getPackageName().equals("io.blackboard.ojs")) {
                info.getPathPatternsCondition().getPatternValues().forEach(path -> info.getMethodsCondition()
                        .getMethods().forEach(method -> endpoints.add(method + " " + path)));
            }
        });
        return endpoints;
    }

    @Test
    void everyEndpointIsDocumentedWithASummaryAndProblemErrors() {
        Api.Response docs = api.get("/v3/api-docs");
        assertThat(docs.status()).isEqualTo(200);
        Set<String> documented = new TreeSet<>();
        docs.at("/paths").properties().forEach(path -> path.getValue().properties().forEach(
                operation -> documented.add(operation.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey())));

        Set<String> mapped = mappedEndpoints();
        assertThat(mapped).hasSizeGreaterThan(20);
        assertThat(documented).containsExactlyInAnyOrderElementsOf(mapped);

        docs.at("/paths").properties().forEach(path -> path.getValue().properties().forEach(entry -> {
            JsonNode operation = entry.getValue();
            String name = entry.getKey() + " " + path.getKey();
            assertThat(operation.path("summary").asString()).as(name).isNotBlank();
            assertThat(operation.at("/responses/400/content/application~1problem+json/schema/$ref").asString())
                    .as(name).isEqualTo("#/components/schemas/ProblemDetail");
            assertThat(operation.path("responses").properties().stream().map(r -> r.getKey())
                    .anyMatch(code -> code.startsWith("2"))).as(name + " has a success answer").isTrue();
        }));
        assertThat(docs.at("/paths/~1workers~1{id}/get/responses/404").isMissingNode()).isFalse();
        assertThat(docs.at("/paths/~1blackboard~1job~1result/post/responses/409/description").asString())
                .contains("live claim");
        assertThat(docs.at("/paths/~1workers~1register/post/requestBody/content/application~1json/example/name")
                .asString()).isEqualTo("cisco-worker");
        assertThat(docs.at("/components/schemas/JobView/properties/status/enum").size())
                .as("PENDING, POLLED, PARKED, PUSHED").isEqualTo(4);
        assertThat(docs.at("/components/schemas/ProblemDetail/properties/detail").isMissingNode()).isFalse();
    }

    @Test
    void theBrowsableUiIsServed() {
        Api.Response ui = api.getText("/swagger-ui/index.html");

        assertThat(ui.status()).isEqualTo(200);
        assertThat(ui.raw()).contains("swagger-ui");
        assertThat(api.getText("/swagger-ui.html").status()).as("redirects to the UI").isEqualTo(302);
    }
}
