package io.blackboard.platform.startup;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.TestPostgres;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The schema check against Flyway itself, on migration files written the ways Flyway accepts
 * and the check must read as Flyway does: a byte-order mark, Windows line endings, no newline at
 * the end, a version with an underscore and one with a leading zero, a file in a subdirectory, a
 * description with a double underscore. Whenever real Flyway has migrated them the check finds
 * the schema current at Flyway's own version; whenever Flyway would do anything (a new file, an
 * edited one, a repeatable migration, a setting the check does not read) it does not. Each test
 * migrates a schema of its own in the tests' database, through a class loader over a directory,
 * as another build's jar would bring its files.
 */
class CurrentSchemaTest {

    static final String LOCATION = "db/edge";

    @TempDir
    Path build;

    String schema;
    JdbcClient admin;
    PGSimpleDataSource dataSource;

    @BeforeEach
    void freshSchema() throws IOException {
        schema = "current_schema_" + UUID.randomUUID().toString().replace("-", "");
        admin = JdbcClient.create(dataSource());
        admin.sql("create schema " + schema).update();
        dataSource = dataSource();
        dataSource.setCurrentSchema(schema);

        write("V1__first_table.sql", "\uFEFF-- a BOM and Windows line endings\r\ncreate table first (id int);\r\n");
        write("V1_1__an_underscore_version.sql", "create table second (id int);\n\n");
        write("more/V2__in_a_subdirectory.sql", "create table third (id int);");
        write("V3__a_description_with__two_underscores.sql", "alter table first add column note text;\n");
        write("V010__a_leading_zero.sql", "create index first_note on first (note);\n");
    }

    @AfterEach
    void dropSchema() {
        admin.sql("drop schema " + schema + " cascade").update();
    }

    @Test
    void whatFlywayMigratedIsCurrentAtFlywaysVersionAndNothingBefore() throws IOException {
        Flyway flyway = flyway(UnaryOperator.identity());
        assertThat(CurrentSchema.version(flyway.getConfiguration())).as("no history yet").isEmpty();

        flyway.migrate();
        assertThat(flyway.info().applied()).hasSize(5);
        assertThat(flyway.info().current().getVersion().getVersion()).isEqualTo("010");
        assertThat(CurrentSchema.version(flyway.getConfiguration())).contains("010");

        write("V11__added_by_a_newer_build.sql", "create table fourth (id int);\n");
        Flyway newer = flyway(UnaryOperator.identity());
        assertThat(newer.info().pending()).hasSize(1);
        assertThat(CurrentSchema.version(newer.getConfiguration())).as("a migration to run").isEmpty();

        newer.migrate();
        assertThat(CurrentSchema.version(newer.getConfiguration())).contains("11");
    }

    @Test
    void anEditedFileIsNotCurrentAndFlywaysValidationFailsOnItToo() throws IOException {
        flyway(UnaryOperator.identity()).migrate();

        write("V1_1__an_underscore_version.sql", "create table second (id int); \n\n");
        Flyway edited = flyway(UnaryOperator.identity());
        assertThat(CurrentSchema.version(edited.getConfiguration())).isEmpty();
        assertThat(edited.validateWithResult().validationSuccessful).as("Flyway's own validation").isFalse();

        write("V1_1__an_underscore_version.sql", "create table second (id int);\r\n\r\n");
        Flyway lineEndingsOnly = flyway(UnaryOperator.identity());
        assertThat(lineEndingsOnly.validateWithResult().validationSuccessful).as("line endings are not content")
                .isTrue();
        assertThat(CurrentSchema.version(lineEndingsOnly.getConfiguration())).contains("010");
    }

    @Test
    void whatTheCheckDoesNotReadIsFlywaysToDecide() throws IOException {
        flyway(UnaryOperator.identity()).migrate();
        assertThat(CurrentSchema.version(flyway(UnaryOperator.identity()).getConfiguration())).isPresent();

        List<UnaryOperator<FluentConfiguration>> settings = List.of(
                config -> config.outOfOrder(true),
                config -> config.target("1"),
                config -> config.schemas(schema),
                config -> config.defaultSchema(schema),
                config -> config.table("another_history"),
                config -> config.callbacks(new NoCallback()),
                config -> config.sqlMigrationPrefix("M"),
                config -> config.encoding(StandardCharsets.ISO_8859_1),
                config -> config.locations("filesystem:" + build.resolve(LOCATION)));
        for (UnaryOperator<FluentConfiguration> setting : settings) {
            assertThat(CurrentSchema.version(flyway(setting).getConfiguration())).isEmpty();
        }

        write("R__a_repeatable_view.sql", "create or replace view firsts as select id from first;\n");
        assertThat(CurrentSchema.version(flyway(UnaryOperator.identity()).getConfiguration()))
                .as("a repeatable migration").isEmpty();
    }

    static PGSimpleDataSource dataSource() {
        TestPostgres.Connection connection = TestPostgres.shared();
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(connection.url());
        dataSource.setUser(connection.user());
        dataSource.setPassword(connection.password());
        return dataSource;
    }

    /** Flyway over this build's files as they are now, with Flyway's defaults and {@code setting} applied. */
    Flyway flyway(UnaryOperator<FluentConfiguration> setting) throws MalformedURLException {
        ClassLoader files = new URLClassLoader(new URL[] {build.toUri().toURL()}, getClass().getClassLoader());
        return setting.apply(Flyway.configure(files).dataSource(dataSource).locations("classpath:" + LOCATION))
                .load();
    }

    void write(String file, String content) throws IOException {
        Path path = build.resolve(LOCATION).resolve(file);
        Files.createDirectories(path.getParent());
        Files.writeString(path, content, StandardCharsets.UTF_8);
    }

    /** A callback that does nothing: its presence alone is a setting the check does not read. */
    static final class NoCallback implements Callback {
        @Override
        public boolean supports(Event event, Context context) {
            return false;
        }

        @Override
        public boolean canHandleInTransaction(Event event, Context context) {
            return true;
        }

        @Override
        public void handle(Event event, Context context) {
        }

        @Override
        public String getCallbackName() {
            return "nothing";
        }
    }
}
