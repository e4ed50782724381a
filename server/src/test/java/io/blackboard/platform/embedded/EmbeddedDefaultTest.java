package io.blackboard.platform.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blackboard.Api;
import io.blackboard.BlackboardApplication;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The server with no datasource configured, as a newcomer starts it: it runs on its own embedded
 * PostgreSQL with the development tokens, keeps its data across restarts, and refuses the
 * production profile.
 */
class EmbeddedDefaultTest {

    @TempDir
    Path dataDir;

    @Test
    void withNoDatasourceTheServerRunsOnItsEmbeddedPostgresAndKeepsItsDataAcrossRestarts() {
        String workerId;
        try (ConfigurableApplicationContext server = start()) {
            assertThat(server.getBean(DevelopmentDatabase.class).server().dataDirectory())
                    .isEqualTo(dataDir.toAbsolutePath().resolve("postgres-17"));
            Api api = api(server);
            Api.Response registered = api.as("dev-worker-token").post("/workers/register", Map.of("name", "newcomer"));
            assertThat(registered.status()).as(registered.toString()).isEqualTo(201);
            workerId = registered.at("/id").asString();
            assertThat(api.as("dev-operator-token").get("/actuator/health").at("/components/db/status").asString())
                    .isEqualTo("UP");
            assertThat(api.as("test-all").get("/workers/online").status()).as("the tests' tokens are not set here")
                    .isEqualTo(401);
        }
        try (ConfigurableApplicationContext server = start()) {
            Api.Response worker = api(server).as("dev-operator-token").get("/workers/" + workerId);
            assertThat(worker.status()).as(worker.toString()).isEqualTo(200);
            assertThat(worker.at("/name").asString()).isEqualTo("newcomer");
        }
    }

    @Test
    void theProductionProfileRefusesTheEmbeddedDatabase() {
        assertThatThrownBy(() -> application().profiles("production").run(args()).close())
                .hasRootCauseInstanceOf(EmbeddedPostgresServer.EmbeddedPostgresRefused.class)
                .rootCause().hasMessageContaining("production profile needs a real PostgreSQL");
    }

    private ConfigurableApplicationContext start() {
        return application().run(args());
    }

    private SpringApplicationBuilder application() {
        return new SpringApplicationBuilder(BlackboardApplication.class);
    }

    /** Command-line arguments outrank the tests' application.properties: no tokens, no datasource. */
    private String[] args() {
        return new String[] {"--server.port=0", "--blackboard.embedded.data-dir=" + dataDir,
            "--BLACKBOARD_WORKER_TOKENS=", "--BLACKBOARD_ENGINE_TOKENS=", "--BLACKBOARD_OPERATOR_TOKENS=",
            "--BLACKBOARD_OJS_WORKER_TOKENS="};
    }

    private static Api api(ConfigurableApplicationContext server) {
        return new Api(((WebServerApplicationContext) server).getWebServer().getPort());
    }
}
