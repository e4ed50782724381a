package io.blackboard.platform.embedded;

import io.blackboard.platform.embedded.EmbeddedPostgresServer.EmbeddedPostgresRefused;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.env.Profiles;

/**
 * The development default: with no {@code spring.datasource.url} (SPRING_DATASOURCE_URL) and no
 * other connection given (the tests give theirs), the server starts a PostgreSQL of its own
 * ({@link EmbeddedPostgresServer}) and connects to it through the usual pool, Flyway and health
 * checks. An auto-configuration, so it runs after every connection a user or test declares.
 * Refused under the {@code production} (or {@code prod}) profile: production needs a real,
 * shared, backed-up PostgreSQL.
 */
@AutoConfiguration(before = DataSourceAutoConfiguration.class)
@ConditionalOnExpression("'${spring.datasource.url:}'.isBlank()")
@ConditionalOnMissingBean(JdbcConnectionDetails.class)
@EnableConfigurationProperties(EmbeddedPostgresProperties.class)
public class EmbeddedPostgresAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresAutoConfiguration.class);

    @Bean(destroyMethod = "close")
    EmbeddedPostgresServer embeddedPostgresServer(EmbeddedPostgresProperties properties, Environment environment)
            throws IOException {
        if (environment.acceptsProfiles(Profiles.of("production | prod"))) {
            throw new EmbeddedPostgresRefused("No SPRING_DATASOURCE_URL is set, and the embedded PostgreSQL is"
                    + " for development and trials only: the production profile needs a real PostgreSQL.",
                    "Point Blackboard at a PostgreSQL 15 or newer: SPRING_DATASOURCE_URL=jdbc:postgresql://HOST:5432/DB"
                            + " with SPRING_DATASOURCE_USERNAME and SPRING_DATASOURCE_PASSWORD.");
        }
        long start = System.nanoTime();
        EmbeddedPostgresServer server = EmbeddedPostgresServer.start(properties.dataDir(), properties.port());
        log.warn("""
                No SPRING_DATASOURCE_URL set: running on an embedded PostgreSQL {}, for development and trials \
                only (one server process, no backups; set SPRING_DATASOURCE_URL for production). \
                Data in {}, started in {} ms. Connect with: psql -h localhost -p {} -U {} {} ({})""",
                EmbeddedPostgresServer.MAJOR, server.dataDirectory(), (System.nanoTime() - start) / 1_000_000,
                server.port(), server.username(), EmbeddedPostgresServer.DATABASE, server.jdbcUrl());
        return server;
    }

    @Bean
    JdbcConnectionDetails embeddedPostgresConnection(EmbeddedPostgresServer server) {
        return new FixedJdbcConnection(server.jdbcUrl(), server.username(), "");
    }
}
