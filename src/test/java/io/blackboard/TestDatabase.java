package io.blackboard;

import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The one database configuration of every integration test and of
 * {@link TestBlackboardApplication}: a Testcontainers PostgreSQL where a Docker engine runs,
 * unless BLACKBOARD_TEST_DB_URL names a database to use instead (as .ci/run does on machines
 * without Docker).
 */
@TestConfiguration(proxyBeanMethods = false)
public class TestDatabase {

    @Bean
    @ServiceConnection
    @ConditionalOnExpression("'${BLACKBOARD_TEST_DB_URL:}'.isEmpty()")
    PostgreSQLContainer postgres() {
        return new PostgreSQLContainer("postgres:15-alpine");
    }
}
