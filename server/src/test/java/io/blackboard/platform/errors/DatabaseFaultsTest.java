package io.blackboard.platform.errors;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;

/**
 * Every database fault is a 503 with Retry-After, whatever the layer that meets it: PostgreSQL
 * ends the request's session for real (pg_terminate_backend from another session) right before
 * the server prepares a statement, commits, or rolls back, or refuses new connections when the
 * pool needs one. After each, the same request succeeds: the replica recovers by itself.
 */
@Import(DatabaseFaultsTest.Faults.class)
@TestPropertySource(properties = {"blackboard.scheduling.enabled=false",
        "spring.datasource.hikari.connection-timeout=1000", "spring.datasource.hikari.maximum-pool-size=4"})
@DirtiesContext
class DatabaseFaultsTest extends IntegrationTest {

    /** Where the next request's session is ended. */
    enum Point { STATEMENT, COMMIT, ROLLBACK }

    private static final AtomicReference<Point> ARMED = new AtomicReference<>();

    @Autowired
    JdbcConnectionDetails database;

    UUID worker;
    UUID block;

    @BeforeEach
    void aWorkerWithABlock() {
        worker = registerWorker("faulty");
        block = registerBlocks(worker, List.of(block("probe", "1"))).getFirst();
    }

    @AfterEach
    void disarm() {
        ARMED.set(null);
    }

    @Test
    void aSessionEndedBeforeAStatementIsA503AndTheNextRequestSucceeds() {
        for (Request request : requests()) {
            assertRetryable(Point.STATEMENT, request);
        }
    }

    @Test
    void aSessionEndedBeforeTheCommitIsA503AndTheNextRequestSucceeds() {
        for (Request request : requests()) {
            assertRetryable(Point.COMMIT, request);
        }
        assertThat(jdbc.sql("select count(*) from job where payload ->> 'n' = 'commit'").query(Long.class).single())
                .as("the creates whose commit failed left nothing; the ones sent again one job each")
                .isEqualTo(1L);
    }

    @Test
    void aSessionEndedBeforeTheRollbackIsA503AndTheNextRequestIsAnsweredAsUsual() {
        // a poll for a block the worker does not serve fails inside its transaction: rolled back
        UUID other = registerBlocks(registerWorker("other"), List.of(block("elsewhere", "1"))).getFirst();
        Request refused = new Request("poll for a block it does not serve", "/blackboard/job",
                Map.of("workerId", worker, "functionBlockIds", List.of(other)), 422);
        assertRetryable(Point.ROLLBACK, refused);
    }

    @Test
    void noConnectionForThePoolIsA503AndTheNextRequestSucceeds() throws SQLException {
        String name = jdbc.sql("select current_database()").query(String.class).single();
        try (Connection admin = admin(); Statement sql = admin.createStatement()) {
            sql.execute("alter database \"" + name + "\" allow_connections false");
            try {
                sql.execute("""
                        select pg_terminate_backend(pid) from pg_stat_activity
                         where datname = '%s' and pid <> pg_backend_pid() and application_name <> 'blackboard-listener'
                        """.formatted(name));
                for (Request request : requests()) {
                    assertRetryableAnswer(request, api.post(request.path(), request.body()));
                }
            } finally {
                sql.execute("alter database \"" + name + "\" allow_connections true");
            }
        }
        // the pool fills again by itself, within its connection timeout's retries
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (api.get("/actuator/health/readiness").status() != 200 && System.nanoTime() < until) {
            Thread.onSpinWait();
        }
        for (Request request : requests()) {
            Api.Response again = api.post(request.path(), request.body());
            assertThat(again.status()).as(request.name() + " once PostgreSQL takes connections: " + again)
                    .isEqualTo(request.status());
        }
    }

    /** The requests of the hot paths: a read-write transaction each, or an autocommitted statement. */
    private List<Request> requests() {
        return List.of(
                new Request("create", "/blackboard/jobs", List.of(Map.of("functionBlockId", block, "type", "EXECUTE",
                        "payload", Map.of("n", "commit"), "idempotencyKey", "fault-" + UUID.randomUUID())), 201),
                new Request("register", "/workers/register", Map.of("name", "late"), 201),
                new Request("poll", "/blackboard/job", Map.of("workerId", worker, "limit", 1), 200),
                new Request("ping", "/workers/" + worker + "/ping", Map.of("activeJobIds", List.of()), 200));
    }

    private record Request(String name, String path, Object body, int status) {
    }

    private void assertRetryable(Point point, Request request) {
        ARMED.set(point);
        Api.Response failed = api.post(request.path(), request.body());
        assertThat(ARMED.get()).as(request.name() + " met the fault at " + point).isNull();
        assertRetryableAnswer(request, failed);
        Api.Response again = api.post(request.path(), request.body());
        assertThat(again.status()).as(request.name() + " sent again: " + again).isEqualTo(request.status());
    }

    private void assertRetryableAnswer(Request request, Api.Response failed) {
        assertThat(failed.status()).as(request.name() + ": " + failed).isEqualTo(503);
        assertThat(failed.headers().firstValue("Retry-After")).as(request.name()).isPresent();
        assertThat(failed.at("/type").asString()).as(request.name()).endsWith("database-unavailable");
    }

    /** A database cannot shut itself out: administer it from the cluster's 'postgres' database. */
    private Connection admin() throws SQLException {
        String name = jdbc.sql("select current_database()").query(String.class).single();
        String adminUrl = database.getJdbcUrl().replaceFirst("/" + name + "(\\?|$)", "/postgres$1");
        return DriverManager.getConnection(adminUrl, database.getUsername(), database.getPassword());
    }

    /**
     * Ends the session behind {@code connection} from another one, and waits until PostgreSQL has
     * let it go: the next use of the connection fails as a real lost connection does.
     */
    private static void terminate(Connection connection, JdbcConnectionDetails database) throws SQLException {
        int pid = connection.unwrap(PGConnection.class).getBackendPID();
        try (Connection admin = DriverManager.getConnection(database.getJdbcUrl(), database.getUsername(),
                database.getPassword()); Statement sql = admin.createStatement()) {
            sql.execute("select pg_terminate_backend(" + pid + ")");
            for (int i = 0; i < 100; i++) {
                try (var rows = sql.executeQuery("select count(*) from pg_stat_activity where pid = " + pid)) {
                    rows.next();
                    if (rows.getInt(1) == 0) {
                        return;
                    }
                }
                Thread.onSpinWait();
            }
        }
    }

    /** The pool's connections, each able to end its own session once at the armed point. */
    @TestConfiguration(proxyBeanMethods = false)
    static class Faults {

        private static final Set<String> STATEMENTS = Set.of("prepareStatement", "createStatement", "prepareCall");

        @Bean
        static BeanPostProcessor faultyConnections(JdbcConnectionDetails database) {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                    return bean instanceof DataSource dataSource && name.equals("dataSource")
                            ? new Faulty(dataSource, database) : bean;
                }
            };
        }

        private static final class Faulty extends DelegatingDataSource {

            private final JdbcConnectionDetails database;

            Faulty(DataSource target, JdbcConnectionDetails database) {
                super(target);
                this.database = database;
            }

            @Override
            public Connection getConnection() throws SQLException {
                Connection real = super.getConnection();
                InvocationHandler handler = (proxy, method, args) -> {
                    Point point = STATEMENTS.contains(method.getName()) ? Point.STATEMENT
                            : method.getName().equals("commit") ? Point.COMMIT
                            : method.getName().equals("rollback") && (args == null || args.length == 0) ? Point.ROLLBACK
                            : null;
                    if (point != null && ARMED.compareAndSet(point, null)) {
                        terminate(real, database);
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                };
                return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                        new Class<?>[] {Connection.class}, handler);
            }
        }
    }
}
