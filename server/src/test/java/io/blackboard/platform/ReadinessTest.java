package io.blackboard.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;

/**
 * Readiness follows the database for real: the test database stops accepting connections and
 * its sessions are ended, as when PostgreSQL is unreachable, then it is let back in; and it
 * follows the job notification listener, whose session alone is ended.
 */
@TestPropertySource(properties = {"spring.datasource.hikari.connection-timeout=1000",
        "spring.datasource.hikari.maximum-pool-size=4"})
@DirtiesContext
class ReadinessTest extends IntegrationTest {

    @Autowired
    JdbcConnectionDetails database;

    @Test
    void readinessIsDownWhilePostgresIsUnreachableAndUpWhenItIsBack() throws SQLException {
        assertThat(api.get("/actuator/health/readiness").status()).isEqualTo(200);
        String name = databaseName();
        try (Connection admin = admin(); Statement sql = admin.createStatement()) {
            sql.execute("alter database \"" + name + "\" allow_connections false");
            try {
                sql.execute("""
                        select pg_terminate_backend(pid) from pg_stat_activity
                         where datname = '%s' and usename = current_user and backend_type = 'client backend'
                        """.formatted(name));
                Api.Response down = awaitReadiness(response -> response.status() == 503);
                assertThat(down.at("/status").asString()).isEqualTo("DOWN");
                assertThat(down.at("/components/db/status").asString()).isEqualTo("DOWN");
                assertThat(api.get("/actuator/health/liveness").status()).as("liveness ignores the database")
                        .isEqualTo(200);
            } finally {
                sql.execute("alter database \"" + name + "\" allow_connections true");
            }
        }
        assertThat(awaitReadiness(response -> response.status() == 200).at("/components/db/status").asString())
                .isEqualTo("UP");
    }

    @Test
    void readinessIsDownWhileTheNotificationListenerIsDisconnected() throws SQLException {
        Api.Response up = awaitReadiness(response -> response.status() == 200);
        int listener = up.at("/components/notifications/details/listenerBackendPid").asInt();
        assertThat(listener).as(up.toString()).isPositive();
        String name = databaseName();
        try (Connection admin = admin(); Statement sql = admin.createStatement()) {
            // the pool keeps its open connections: only the listener is cut off, and cannot come back
            sql.execute("alter database \"" + name + "\" allow_connections false");
            try {
                sql.execute("select pg_terminate_backend(" + listener + ")");
                Api.Response down = awaitReadiness(response -> response.status() == 503);
                assertThat(down.at("/components/notifications/status").asString()).as(down.toString())
                        .isEqualTo("DOWN");
            } finally {
                sql.execute("alter database \"" + name + "\" allow_connections true");
            }
        }
        Api.Response back = awaitReadiness(response -> response.status() == 200);
        assertThat(back.at("/components/notifications/details/listenerBackendPid").asInt()).isNotIn(0, listener);
    }

    private String databaseName() {
        return jdbc.sql("select current_database()").query(String.class).single();
    }

    /** A database cannot shut itself out: administer it from the cluster's 'postgres' database. */
    private Connection admin() throws SQLException {
        String adminUrl = database.getJdbcUrl().replaceFirst("/" + databaseName() + "(\\?|$)", "/postgres$1");
        return DriverManager.getConnection(adminUrl, database.getUsername(), database.getPassword());
    }

    private Api.Response awaitReadiness(Predicate<Api.Response> condition) {
        long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        Api.Response response;
        do {
            response = api.get("/actuator/health/readiness");
            if (condition.test(response)) {
                return response;
            }
            pause();
        } while (System.nanoTime() < until);
        throw new AssertionError("readiness never matched; last answer: " + response);
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
