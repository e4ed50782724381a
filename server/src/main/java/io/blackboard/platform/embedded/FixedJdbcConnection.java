package io.blackboard.platform.embedded;

import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;

/**
 * A connection known in advance (the embedded database's, a test's): declared as a bean, it
 * replaces the spring.datasource URL and credentials while the pool settings still apply.
 */
public record FixedJdbcConnection(String jdbcUrl, String username, String password) implements JdbcConnectionDetails {

    @Override
    public String getJdbcUrl() {
        return jdbcUrl;
    }

    @Override
    public String getUsername() {
        return username;
    }

    @Override
    public String getPassword() {
        return password;
    }
}
