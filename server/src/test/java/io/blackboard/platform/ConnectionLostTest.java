package io.blackboard.platform;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.springframework.orm.jpa.JpaSystemException;

/** A lost connection is a 503 however deeply it is wrapped (seen: a failed rollback while PostgreSQL shut down). */
class ConnectionLostTest {

    @Test
    void aLostConnectionAnywhereInTheChainIsTransient() {
        SQLException closed = new SQLException("This connection has been closed.", "08003");
        assertThat(ProblemHandler.connectionLost(new JpaSystemException(new RuntimeException("rollback", closed))))
                .isTrue();
        assertThat(ProblemHandler.connectionLost(new SQLException("terminating connection", "57P01"))).isTrue();
    }

    @Test
    void otherFailuresAreNot() {
        assertThat(ProblemHandler.connectionLost(new SQLException("duplicate key", "23505"))).isFalse();
        assertThat(ProblemHandler.connectionLost(new IllegalStateException("bug"))).isFalse();
        assertThat(ProblemHandler.connectionLost(new SQLException("no state"))).isFalse();
    }
}
