package io.blackboard.platform.startup;

import java.util.Optional;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * What a start does with the schema. A training run of the ahead-of-time cache
 * ({@code -XX:AOTCacheOutput} with {@code -Dspring.context.exit=onRefresh}: the context starts,
 * then the JVM exits and writes what it loaded and linked) migrates nothing: it runs where the
 * image is built, where no database may be reachable, and a run that serves nothing must not
 * change the schema of one that is. A restart against a schema Flyway has already brought to
 * this build's migrations, every one applied with the checksum of its file here
 * ({@link CurrentSchema}), skips Flyway's own scan, validation and lock: a few hundred
 * milliseconds of every start. Anything else (a new database, a new migration, a changed or
 * failed one, another build's history) runs Flyway's migrate as always, validation included.
 */
@Configuration(proxyBeanMethods = false)
class SchemaMigration {

    private static final Logger log = LoggerFactory.getLogger(SchemaMigration.class);

    @Bean
    FlywayMigrationStrategy migrateUnlessCurrent(Environment environment) {
        boolean training = "onRefresh".equalsIgnoreCase(environment.getProperty("spring.context.exit", ""));
        return (Flyway flyway) -> {
            if (training) {
                log.info("A training run (spring.context.exit=onRefresh): no migration");
                return;
            }
            Optional<String> current = CurrentSchema.version(flyway.getConfiguration());
            if (current.isPresent()) {
                log.info("Schema at version {}, every migration of this build applied with its checksum: "
                        + "nothing to migrate", current.get());
            } else {
                flyway.migrate();
            }
        };
    }
}
