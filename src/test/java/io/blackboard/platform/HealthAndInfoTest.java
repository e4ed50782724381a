package io.blackboard.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import org.junit.jupiter.api.Test;

class HealthAndInfoTest extends IntegrationTest {

    @Test
    void healthShowsTheDatabaseAndBothProbes() {
        Api.Response health = api.get("/actuator/health");
        assertThat(health.status()).as(health.toString()).isEqualTo(200);
        assertThat(health.at("/status").asString()).isEqualTo("UP");
        assertThat(health.at("/components/db/status").asString()).isEqualTo("UP");

        Api.Response liveness = api.get("/actuator/health/liveness");
        assertThat(liveness.status()).isEqualTo(200);
        assertThat(liveness.at("/components/livenessState/status").asString()).isEqualTo("UP");
        assertThat(liveness.at("/components/db").isMissingNode()).as("liveness must not hang on the database").isTrue();

        Api.Response readiness = api.get("/actuator/health/readiness");
        assertThat(readiness.status()).isEqualTo(200);
        assertThat(readiness.at("/components/readinessState/status").asString()).isEqualTo("UP");
        assertThat(readiness.at("/components/db/status").asString()).isEqualTo("UP");
    }

    @Test
    void infoNamesTheBuildAndItsCommit() {
        Api.Response info = api.get("/actuator/info");
        assertThat(info.status()).isEqualTo(200);
        assertThat(info.at("/build/artifact").asString()).isEqualTo("blackboard");
        assertThat(info.at("/build/version").asString()).isNotBlank();
        // a source archive without .git builds without the git section; a clone has it
        if (!info.at("/git").isMissingNode()) {
            assertThat(info.at("/git/commit/id").asString()).matches("[0-9a-f]{7,40}");
        }
    }
}
