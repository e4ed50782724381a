package io.blackboard.platform.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.spy;
import static org.mockito.Mockito.verify;

import io.blackboard.IntegrationTest;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.exception.FlywayValidateException;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;

/**
 * A restart against a schema Flyway brought to this build's migrations runs no Flyway; any
 * difference in the history (a changed checksum, a failed row, a migration of another build, no
 * history at all) runs Flyway's migrate, validation included, as before. The database is the
 * tests' own, migrated by Flyway when the first test context started.
 */
class SchemaMigrationTest extends IntegrationTest {

    @Autowired
    Flyway flyway;

    @Autowired
    FlywayMigrationStrategy strategy;

    @Test
    void theSchemaFlywayMigratedIsCurrentByItsOwnChecksumsAndNeedsNoFlyway() {
        String latest = flyway.info().current().getVersion().getVersion();
        assertThat(CurrentSchema.version(flyway.getConfiguration())).contains(latest);

        Flyway watched = spy(flyway);
        strategy.migrate(watched);
        verify(watched, never()).migrate();
    }

    @Test
    void aChangedChecksumIsFlywaysToReport() {
        String version = flyway.info().applied()[0].getVersion().getVersion();
        history("update %s set checksum = checksum + 1 where version = '" + version + "'",
                "update %s set checksum = checksum - 1 where version = '" + version + "'", () -> {
                    assertThat(CurrentSchema.version(flyway.getConfiguration())).isEmpty();
                    Flyway watched = spy(flyway);
                    assertThatThrownBy(() -> strategy.migrate(watched)).isInstanceOf(FlywayValidateException.class)
                            .hasMessageContaining("checksum mismatch");
                    verify(watched).migrate();
                });
    }

    @Test
    void aFailedRowAnotherBuildsMigrationOrNoHistoryIsNotCurrent() {
        String latest = flyway.info().current().getVersion().getVersion();
        history("update %s set success = false where version = '" + latest + "'",
                "update %s set success = true where version = '" + latest + "'",
                () -> assertThat(CurrentSchema.version(flyway.getConfiguration())).isEmpty());
        history("""
                insert into %s (installed_rank, version, description, type, script, checksum, installed_by, execution_time, success)
                values (10000, '10000', 'of a newer build', 'SQL', 'V10000__of_a_newer_build.sql', 1, 'test', 1, true)""",
                "delete from %s where installed_rank = 10000",
                () -> assertThat(CurrentSchema.version(flyway.getConfiguration())).isEmpty());
        history("alter table %1$s rename to %1$s_aside", "alter table %1$s_aside rename to %1$s",
                () -> assertThat(CurrentSchema.version(flyway.getConfiguration())).isEmpty());

        assertThat(CurrentSchema.version(flyway.getConfiguration())).as("all restored").isPresent();
    }

    /** Changes the history table (committed: the check reads on its own connection), runs {@code check}, and undoes it. */
    void history(String change, String undo, Runnable check) {
        String table = flyway.getConfiguration().getTable();
        jdbc.sql(change.formatted(table)).update();
        try {
            check.run();
        } finally {
            jdbc.sql(undo.formatted(table)).update();
        }
    }
}
