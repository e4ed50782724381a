package io.blackboard.platform.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blackboard.platform.embedded.EmbeddedPostgresServer.EmbeddedPostgresRefused;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** The embedded development database: its data survives restarts, and it has one owner at a time. */
class EmbeddedPostgresServerTest {

    @TempDir
    Path dataDir;

    @Test
    void dataWrittenBeforeAStopIsThereAfterTheNextStart() throws Exception {
        try (EmbeddedPostgresServer server = EmbeddedPostgresServer.start(dataDir, 0)) {
            assertThat(server.jdbcUrl()).endsWith("/blackboard");
            assertThat(server.dataDirectory()).isEqualTo(dataDir.toAbsolutePath().resolve("postgres-17"));
            jdbc(server).sql("create table kept (note text)").update();
            jdbc(server).sql("insert into kept values ('before the restart')").update();
            assertThat(jdbc(server).sql("show fsync").query(String.class).single()).isEqualTo("on");
            assertThat(jdbc(server).sql("show synchronous_commit").query(String.class).single()).isEqualTo("on");
        }
        try (EmbeddedPostgresServer server = EmbeddedPostgresServer.start(dataDir, 0)) {
            assertThat(jdbc(server).sql("select note from kept").query(String.class).list())
                    .containsExactly("before the restart");
        }
    }

    @Test
    void aSecondServerOnTheSameDataDirectoryIsRefusedWhileTheFirstRuns() throws Exception {
        try (EmbeddedPostgresServer first = EmbeddedPostgresServer.start(dataDir, 0)) {
            assertThatThrownBy(() -> EmbeddedPostgresServer.start(dataDir, 0))
                    .isInstanceOf(EmbeddedPostgresRefused.class)
                    .hasMessageContaining("in use by another Blackboard process");
            assertThat(jdbc(first).sql("select 1").query(Integer.class).single()).as("the first one is untouched")
                    .isEqualTo(1);
        }
        try (EmbeddedPostgresServer next = EmbeddedPostgresServer.start(dataDir, 0)) {
            assertThat(jdbc(next).sql("select 1").query(Integer.class).single()).isEqualTo(1);
        }
    }

    @Test
    void aPostgresLeftRunningByAKilledServerIsStoppedAndItsDataReused() throws Exception {
        // another JVM starts the database and writes a row, then dies by SIGKILL: no shutdown runs
        Process holder = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                "-cp", System.getProperty("java.class.path"), Holder.class.getName(), dataDir.toString())
                .redirectErrorStream(true).start();
        String port;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream()))) {
            port = out.lines().filter(l -> l.startsWith("ready ")).findFirst().orElseThrow().substring(6);
            holder.descendants().filter(p -> !p.info().command().orElse("").contains("postgres"))
                    .forEach(ProcessHandle::destroyForcibly);
            holder.destroyForcibly();
            assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        List<String> pid = Files.readAllLines(dataDir.resolve("postgres-17").resolve("postmaster.pid"));
        ProcessHandle orphan = ProcessHandle.of(Long.parseLong(pid.getFirst().trim())).orElseThrow();
        assertThat(orphan.isAlive()).as("the killed server's PostgreSQL still runs on port " + port).isTrue();

        try (EmbeddedPostgresServer server = EmbeddedPostgresServer.start(dataDir, 0)) {
            assertThat(orphan.isAlive()).isFalse();
            assertThat(jdbc(server).sql("select note from kept").query(String.class).list())
                    .containsExactly("written by the killed server");
        }
    }

    /** The server process that gets killed. */
    static final class Holder {

        public static void main(String[] args) throws Exception {
            EmbeddedPostgresServer server = EmbeddedPostgresServer.start(Path.of(args[0]), 0);
            jdbc(server).sql("create table kept (note text)").update();
            jdbc(server).sql("insert into kept values ('written by the killed server')").update();
            System.out.println("ready " + server.port());
            System.out.flush();
            Thread.sleep(120_000);
        }
    }

    private static JdbcClient jdbc(EmbeddedPostgresServer server) {
        return JdbcClient.create(new DriverManagerDataSource(server.jdbcUrl(), server.username(), ""));
    }
}
