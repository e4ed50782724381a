package io.blackboard.chaos;

import com.zaxxer.hikari.HikariDataSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The database the server processes share: BLACKBOARD_TEST_DB_URL (what .ci/run provides), or
 * a Testcontainers PostgreSQL where a Docker engine runs.
 */
record ChaosDatabase(String url, String user, String password) {

    private static PostgreSQLContainer container;

    static ChaosDatabase fromEnvironment() {
        String url = System.getenv("BLACKBOARD_TEST_DB_URL");
        if (url != null && !url.isBlank()) {
            return new ChaosDatabase(url, env("BLACKBOARD_TEST_DB_USER", "postgres"),
                    env("BLACKBOARD_TEST_DB_PASSWORD", ""));
        }
        synchronized (ChaosDatabase.class) {
            if (container == null) {
                container = new PostgreSQLContainer("postgres:15-alpine");
                container.start();
            }
        }
        return new ChaosDatabase(container.getJdbcUrl(), container.getUsername(), container.getPassword());
    }

    /** A database this test may stop and start: BLACKBOARD_CHAOS_DB_URL with BLACKBOARD_CHAOS_PG_CTL. */
    static ChaosDatabase restartable() {
        return new ChaosDatabase(System.getenv("BLACKBOARD_CHAOS_DB_URL"), env("BLACKBOARD_CHAOS_DB_USER", "postgres"),
                env("BLACKBOARD_CHAOS_DB_PASSWORD", ""));
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
                jdbc().sql("truncate job_event, job, worker_function_block, function_block, worker").update();
                return;
            } catch (org.springframework.dao.DataAccessException e) {
                if (attempt == 5) {
                    throw e; // the servers' sweepers kept winning the lock race
                }
                Replica.sleep(200);
            }
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null ? fallback : value;
    }
}
