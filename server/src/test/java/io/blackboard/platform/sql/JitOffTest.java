package io.blackboard.platform.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.blackboard.IntegrationTest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The server's connections never JIT-compile a statement, whatever its estimated cost: a plan
 * made while the statistics recorded a large table would otherwise compile on every execution
 * (hundreds of milliseconds of PostgreSQL's CPU for a claim, BENCHMARKS.md). A connection to
 * the same database without the server's settings shows that the database's default is on (the
 * first test needs that), and, where PostgreSQL has a JIT provider, that it compiles the same
 * statement with jit on.
 */
class JitOffTest extends IntegrationTest {

    /** Costs every statement above the JIT threshold, for the transaction only. */
    static final String COMPILE_EVERYTHING = "set local jit_above_cost = 0";

    /** On the plain connection: JIT on, whatever the database's or cluster's own setting. */
    static final String JIT_ON = "set local jit = on";

    static final String EXPLAIN = "explain (analyze, format json) select count(*) from job where status = 'PENDING'";

    @Autowired
    DataSource pooled;

    /** The pool itself, behind the server's {@code DeadlineDataSource}. */
    HikariDataSource pool;

    @BeforeEach
    void unwrapThePool() throws SQLException {
        pool = pooled.unwrap(HikariDataSource.class);
    }

    @Test
    void thePoolsConnectionsHaveJitOffWhereTheDatabaseDefaultIsOn() throws SQLException {
        try (Connection plain = plainConnection()) {
            assumeTrue("on".equals(setting(plain, "jit")), "jit is off for this whole database or cluster already");
        }
        try (Connection pooled = pool.getConnection()) {
            assertThat(setting(pooled, "jit")).isEqualTo("off");
        }
    }

    /** Where PostgreSQL has a JIT provider (Debian's packages and the official image do). */
    @Test
    void aPooledConnectionRunsAStatementWithoutCompilingIt() throws SQLException {
        try (Connection plain = plainConnection()) {
            assumeTrue(jitAvailable(plain), "this PostgreSQL has no JIT provider (llvmjit)");
            assertThat(explainCompilingEverything(plain, JIT_ON)).as("a connection without the server's settings")
                    .contains("\"JIT\"");
        }
        try (Connection pooled = pool.getConnection()) {
            assertThat(explainCompilingEverything(pooled)).doesNotContain("\"JIT\"");
        }
    }

    Connection plainConnection() throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", pool.getUsername());
        if (pool.getPassword() != null) {
            properties.setProperty("password", pool.getPassword());
        }
        return DriverManager.getConnection(pool.getJdbcUrl(), properties);
    }

    static String setting(Connection connection, String name) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("select current_setting('" + name + "')")) {
            rows.next();
            return rows.getString(1);
        }
    }

    static boolean jitAvailable(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("select pg_jit_available()")) {
            rows.next();
            return rows.getBoolean(1);
        }
    }

    static String explainCompilingEverything(Connection connection, String... settings) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            for (String setting : settings) {
                statement.execute(setting);
            }
            statement.execute(COMPILE_EVERYTHING);
            try (ResultSet rows = statement.executeQuery(EXPLAIN)) {
                rows.next();
                return rows.getString(1);
            }
        } finally {
            connection.rollback();
            connection.setAutoCommit(autoCommit);
        }
    }
}
