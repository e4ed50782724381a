package io.blackboard.platform.embedded;

import io.blackboard.platform.embedded.EmbeddedPostgresServer.EmbeddedPostgresRefused;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.env.Profiles;
import org.springframework.util.StringUtils;

/**
 * The development default: with no {@code spring.datasource.url} (SPRING_DATASOURCE_URL) and no
 * other connection given (the tests give theirs), the server starts a PostgreSQL of its own
 * ({@link EmbeddedPostgresServer}) and connects to it through the usual pool, Flyway and health
 * checks. An auto-configuration, so it runs after every connection a user or test declares.
 * Refused under the {@code production} (or {@code prod}) profile: production needs a real,
 * shared, backed-up PostgreSQL.
 * <p>The choice is made when the server starts, not by a condition: the jar's ahead-of-time
 * processed context ({@code -Dspring.aot.enabled=true}, docs/operations.md) fixes its beans
 * when the jar is built, where no URL is set.
 */
@AutoConfiguration(before = DataSourceAutoConfiguration.class)
@ConditionalOnMissingBean(JdbcConnectionDetails.class)
@EnableConfigurationProperties(EmbeddedPostgresProperties.class)
public class EmbeddedPostgresAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresAutoConfiguration.class);

    /** The embedded server, started only when no URL is set; closed with the context. */
    @Bean(destroyMethod = "close")
    DevelopmentDatabase developmentDatabase(EmbeddedPostgresProperties properties, Environment environment)
            throws IOException {
        if (StringUtils.hasText(environment.getProperty("spring.datasource.url"))) {
            return new DevelopmentDatabase(null);
        }
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
        return new DevelopmentDatabase(server);
    }

    /** The embedded server's connection, or the configured one as Spring Boot would have made it. */
    @Bean
    JdbcConnectionDetails blackboardConnection(DevelopmentDatabase database, DataSourceProperties properties) {
        EmbeddedPostgresServer server = database.server();
        return server != null ? new FixedJdbcConnection(server.jdbcUrl(), server.username(), "")
                : new FixedJdbcConnection(properties.determineUrl(), properties.determineUsername(),
                        properties.determinePassword());
    }
}
