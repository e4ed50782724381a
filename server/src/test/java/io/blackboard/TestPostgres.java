package io.blackboard;

import io.blackboard.platform.embedded.EmbeddedPostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The one place that decides which PostgreSQL the tests use, once per test JVM, and says so in
 * the test log: the database named by BLACKBOARD_TEST_DB_URL (with BLACKBOARD_TEST_DB_USER and
 * _PASSWORD) where one is given; a Testcontainers PostgreSQL where a Docker engine answers; the
 * server's own embedded PostgreSQL otherwise, fresh in {@code target/test-postgres}. The Spring
 * tests ({@link TestDatabase}) and the server processes of the chaos tests share it.
 */
public final class TestPostgres {

    /** Where a database comes from. */
    public enum Source {
        URL, TESTCONTAINERS, EMBEDDED
    }

    /** How to reach a database. */
    public record Connection(String url, String user, String password) {
    }

    private static final Logger log = LoggerFactory.getLogger(TestPostgres.class);
    private static Connection shared;

    private TestPostgres() {
    }

    /** The tests' database, started on first use and stopped when the JVM exits. */
    public static synchronized Connection shared() {
        if (shared == null) {
            Source source = source();
            shared = switch (source) {
                case URL -> new Connection(System.getenv("BLACKBOARD_TEST_DB_URL"),
                        env("BLACKBOARD_TEST_DB_USER", "postgres"), env("BLACKBOARD_TEST_DB_PASSWORD", ""));
                case TESTCONTAINERS -> {
                    PostgreSQLContainer container = new PostgreSQLContainer("postgres:15-alpine");
                    container.start();
                    yield new Connection(container.getJdbcUrl(), container.getUsername(), container.getPassword());
                }
                case EMBEDDED -> embedded(Path.of("target", "test-postgres"), 0).connection();
            };
            log.info("Tests use PostgreSQL from {}: {}", source, shared.url());
        }
        return shared;
    }

    static Source source() {
        String url = System.getenv("BLACKBOARD_TEST_DB_URL");
        if (url != null && !url.isBlank()) {
            return Source.URL;
        }
        return dockerAvailable() ? Source.TESTCONTAINERS : Source.EMBEDDED;
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** A fresh embedded PostgreSQL in {@code dataDir}, stopped when the JVM exits if not before. */
    public static Embedded embedded(Path dataDir, int port) {
        try {
            EmbeddedPostgresServer server = EmbeddedPostgresServer.start(dataDir, port, true);
            Embedded embedded = new Embedded(dataDir, server);
            Runtime.getRuntime().addShutdownHook(new Thread(embedded::stop));
            return embedded;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An embedded PostgreSQL that a test may stop and start again on the same port and data. */
    public static final class Embedded {

        private final Path dataDir;
        private final int port;
        private final Connection connection;
        private EmbeddedPostgresServer server;

        private Embedded(Path dataDir, EmbeddedPostgresServer server) {
            this.dataDir = dataDir;
            this.server = server;
            this.port = server.port();
            this.connection = new Connection(server.jdbcUrl(), server.username(), "");
        }

        public Connection connection() {
            return connection;
        }

        public synchronized void stop() {
            if (server != null) {
                try {
                    server.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } finally {
                    server = null;
                }
            }
        }

        public synchronized void start() {
            if (server == null) {
                try {
                    server = EmbeddedPostgresServer.start(dataDir, port, false);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    /** An environment variable, or {@code fallback} when it is not set. */
    public static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null ? fallback : value;
    }
}
