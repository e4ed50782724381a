package io.blackboard.platform.errors;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.TransactionSystemException;

/** A lost connection is a 503 however deeply it is wrapped (seen: a failed rollback while PostgreSQL shut down). */
class ConnectionLostTest {

    @Test
    void aLostConnectionAnywhereInTheChainIsTransient() {
        SQLException closed = new SQLException("This connection has been closed.", "08003");
        assertThat(ProblemHandler.connectionLost(new TransactionSystemException("commit failed", new RuntimeException("rollback", closed))))
                .isTrue();
        assertThat(ProblemHandler.connectionLost(new SQLException("terminating connection", "57P01"))).isTrue();
    }

    @Test
    void aRollbackOnAConnectionThePoolClosedIsTransient() {
        // seen while PostgreSQL stopped: the statement's session was terminated, then the rollback
        // met HikariCP's closed proxy, which says so without an SQLSTATE
        SQLException poolClosed = new SQLException("Connection is closed");
        assertThat(ProblemHandler.connectionLost(new TransactionSystemException("JDBC rollback failed", poolClosed)))
                .isTrue();
        assertThat(ProblemHandler.connectionLost(new TransactionSystemException("rollback failed",
                new RuntimeException("Unable to rollback against JDBC Connection", poolClosed)))).isTrue();
        TransactionSystemException rollback = new TransactionSystemException("JDBC rollback failed",
                new SQLException("something else"));
        rollback.initApplicationException(new SQLException("terminating connection", "57P01"));
        assertThat(ProblemHandler.connectionLost(rollback)).as("the failure the rollback replaced").isTrue();
    }

    @Test
    void otherFailuresAreNot() {
        assertThat(ProblemHandler.connectionLost(new SQLException("duplicate key", "23505"))).isFalse();
        assertThat(ProblemHandler.connectionLost(new IllegalStateException("bug"))).isFalse();
        assertThat(ProblemHandler.connectionLost(new SQLException("no state"))).isFalse();
    }
}
