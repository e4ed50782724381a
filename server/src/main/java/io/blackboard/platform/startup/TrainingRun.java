package io.blackboard.platform.startup;

import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The training run of the ahead-of-time cache ({@code -XX:AOTCacheOutput} with
 * {@code -Dspring.context.exit=onRefresh}: the context starts, then the JVM exits and writes
 * what it loaded and linked) migrates no database: it runs where the image is built, where no
 * database may be reachable, and a run that serves nothing must not change the schema of one
 * that is. Any other start migrates as always.
 */
@Configuration(proxyBeanMethods = false)
class TrainingRun {

    private static final Logger log = LoggerFactory.getLogger(TrainingRun.class);

    @Bean
    FlywayMigrationStrategy migrateUnlessTraining(Environment environment) {
        boolean training = "onRefresh".equalsIgnoreCase(environment.getProperty("spring.context.exit", ""));
        return (Flyway flyway) -> {
            if (training) {
                log.info("A training run (spring.context.exit=onRefresh): no migration");
            } else {
                flyway.migrate();
            }
        };
    }
}
