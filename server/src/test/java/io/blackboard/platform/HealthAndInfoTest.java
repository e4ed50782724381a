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
    void healthShowsItsComponentsToOperatorsOnly() {
        for (String caller : new String[] {null, "test-engine", "test-worker"}) {
            Api.Response health = api.as(caller).get("/actuator/health");
            assertThat(health.status()).as(health.toString()).isEqualTo(200);
            assertThat(health.at("/status").asString()).isEqualTo("UP");
            assertThat(health.at("/components").isMissingNode()).as("components shown to %s", caller).isTrue();
            Api.Response readiness = api.as(caller).get("/actuator/health/readiness");
            assertThat(readiness.status()).as("readiness answers %s", caller).isEqualTo(200);
            assertThat(readiness.at("/components").isMissingNode()).isTrue();
        }
        Api.Response operator = api.as("test-operator").get("/actuator/health");
        assertThat(operator.at("/components/db/status").asString()).isEqualTo("UP");
        assertThat(operator.at("/components/db/details/database").asString()).isEqualTo("PostgreSQL");
    }

    @Test
    void infoNamesTheBuildAndItsCommit() {
        Api.Response info = api.get("/actuator/info");
        assertThat(info.status()).isEqualTo(200);
        assertThat(info.at("/build/artifact").asString()).isEqualTo("blackboard");
        assertThat(info.at("/build/version").asString()).isNotBlank();
        // a source archive without .git builds without the git section; a clone has it
        String version = info.at("/build/version").asString();
        if (!info.at("/git").isMissingNode()) {
            assertThat(info.at("/git/commit/id").asString()).matches("[0-9a-f]{7,40}");
            version += "+" + info.at("/git/commit/id").asString().substring(0, 7);
        }
        assertThat(api.get("/v3/api-docs").at("/info/version").asString())
                .as("the API document names the build it was served from").isEqualTo(version);
    }
}
