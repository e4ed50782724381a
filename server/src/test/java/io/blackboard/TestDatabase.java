package io.blackboard;

import io.blackboard.platform.embedded.FixedJdbcConnection;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The one database configuration of every integration test and of
 * {@link TestBlackboardApplication}: the PostgreSQL that {@link TestPostgres} chose (a given URL,
 * Testcontainers, or the embedded one). A connection declared here also keeps the server's own
 * embedded default from starting.
 */
@TestConfiguration(proxyBeanMethods = false)
public class TestDatabase {

    @Bean
    JdbcConnectionDetails testPostgres() {
        TestPostgres.Connection connection = TestPostgres.shared();
        return new FixedJdbcConnection(connection.url(), connection.user(), connection.password());
    }
}
