package io.blackboard.chaos;

import com.zaxxer.hikari.HikariDataSource;
import io.blackboard.TestPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The database the server processes share: the tests' own ({@link TestPostgres}), or one a test
 * may stop and start ({@link Restartable}).
 */
record ChaosDatabase(String url, String user, String password) {

    static ChaosDatabase fromEnvironment() {
        TestPostgres.Connection connection = TestPostgres.shared();
        return new ChaosDatabase(connection.url(), connection.user(), connection.password());
    }

    /**
     * A PostgreSQL of its own that a test may stop and start, so the tests' shared one is never
     * bounced under others: BLACKBOARD_CHAOS_DB_URL with BLACKBOARD_CHAOS_PG_CTL (a command that
     * takes "stop -m fast" and "start") where given, an embedded one in target/ otherwise.
     */
    static Restartable restartable() {
        String url = System.getenv("BLACKBOARD_CHAOS_DB_URL");
        String pgCtl = System.getenv("BLACKBOARD_CHAOS_PG_CTL");
        if (url != null && pgCtl != null) {
            ChaosDatabase database = new ChaosDatabase(url, TestPostgres.env("BLACKBOARD_CHAOS_DB_USER", "postgres"),
                    TestPostgres.env("BLACKBOARD_CHAOS_DB_PASSWORD", ""));
            return new Restartable(database, () -> pgCtl(pgCtl, "stop", "-m", "fast"), () -> pgCtl(pgCtl, "start"));
        }
        TestPostgres.Embedded embedded = TestPostgres.embedded(Path.of("target", "chaos-postgres"), 0);
        TestPostgres.Connection connection = embedded.connection();
        return new Restartable(new ChaosDatabase(connection.url(), connection.user(), connection.password()),
                embedded::stop, embedded::start);
    }

    /** A database and how to stop and start its server. */
    record Restartable(ChaosDatabase database, Runnable stop, Runnable start) {
    }

    private static void pgCtl(String pgCtl, String... action) {
        List<String> command = new java.util.ArrayList<>(List.of(pgCtl.split(" ")));
        command.addAll(List.of(action));
        try {
            Process process = new ProcessBuilder(command).inheritIO().start();
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    JdbcClient jdbc() {
        return JdbcClient.create(POOLS.computeIfAbsent(this, db -> {
            HikariDataSource pool = new HikariDataSource();
            pool.setJdbcUrl(db.url());
            pool.setUsername(db.user());
            pool.setPassword(db.password());
            pool.setMaximumPoolSize(3);
            pool.setMinimumIdle(0);
            pool.setConnectionTimeout(10_000);
            return pool;
        }));
    }

    private static final Map<ChaosDatabase, HikariDataSource> POOLS = new ConcurrentHashMap<>();

    /** Empties every table (the schema exists once a server has started on this database). */
    void reset() {
        for (int attempt = 1; ; attempt++) {
            try {
                jdbc().sql("truncate job_event, job, worker_function_block, function_block, worker_event, worker").update();
                return;
            } catch (org.springframework.dao.DataAccessException e) {
                if (attempt == 5) {
                    throw e; // the servers' sweepers kept winning the lock race
                }
                Replica.sleep(200);
            }
        }
    }
}
