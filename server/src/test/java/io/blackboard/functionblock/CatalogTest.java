package io.blackboard.functionblock;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The catalog's queue view: depth, age of the oldest PENDING job, and whether anyone can take them. */
class CatalogTest extends IntegrationTest {

    UUID worker;
    UUID echo;

    @BeforeEach
    void workerServingEcho() {
        worker = registerWorker(Map.of("name", "w", "labels", Map.of("site", "a")));
        echo = registerBlocks(worker, List.of(block("echo", "1.0.0"))).getFirst();
    }

    UUID pendingJob(Map<String, String> selector) {
        Api.Response created = api.post("/blackboard/jobs",
                Map.of("functionBlockId", echo, "type", "EXECUTE", "selector", selector));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return UUID.fromString(created.at("/id").asString());
    }

    JsonNode echoEntry() {
        Api.Response catalog = api.get("/function-blocks");
        assertThat(catalog.status()).isEqualTo(200);
        return catalog.body().valueStream().filter(entry -> entry.get("id").asString().equals(echo.toString()))
                .findFirst().orElseThrow();
    }

    @Test
    void anEmptyQueueHasNoAgeAndIsNotUnroutable() {
        JsonNode entry = echoEntry();

        assertThat(entry.get("pending").asLong()).isZero();
        assertThat(entry.get("oldestPendingAgeMs").isNull()).isTrue();
        assertThat(entry.get("unroutable").asBoolean()).isFalse();
    }

    @Test
    void theOldestPendingAgeIsMeasuredFromItsCreation() {
        UUID old = pendingJob(Map.of());
        pendingJob(Map.of());
        jdbc.sql("update job set created_at = now() - interval '5 minutes' where id = :id").param("id", old).update();

        JsonNode entry = echoEntry();

        assertThat(entry.get("pending").asLong()).isEqualTo(2);
        assertThat(entry.get("oldestPendingAgeMs").asLong()).isBetween(300_000L, 360_000L);
        assertThat(entry.get("unroutable").asBoolean()).isFalse();
    }

    @Test
    void pendingJobsWithNoOnlineWorkerAreUnroutableUntilOneComesBack() {
        pendingJob(Map.of());
        api.post("/workers/" + worker + "/unregister", null);

        assertThat(echoEntry().get("unroutable").asBoolean()).isTrue();

        api.post("/workers/" + worker + "/ping", null);
        assertThat(echoEntry().get("unroutable").asBoolean()).isFalse();
    }

    @Test
    void aWorkerToldToBeQuietCannotTakeThem() {
        pendingJob(Map.of());

        api.put("/workers/" + worker + "/directive", Map.of("directive", "QUIET"));

        assertThat(echoEntry().get("unroutable").asBoolean()).isTrue();
    }

    @Test
    void aSelectorNoServingWorkerMatchesIsUnroutable() {
        pendingJob(Map.of("site", "a"));
        assertThat(echoEntry().get("unroutable").asBoolean()).isFalse();

        pendingJob(Map.of("site", "b"));
        assertThat(echoEntry().get("unroutable").asBoolean()).isTrue();

        UUID siteB = registerWorker(Map.of("name", "b", "labels", Map.of("site", "b", "rack", "7")));
        registerBlocks(siteB, List.of(block("echo", "1.0.0")));
        assertThat(echoEntry().get("unroutable").asBoolean()).isFalse();
    }
}
