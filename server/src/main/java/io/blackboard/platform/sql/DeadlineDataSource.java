package io.blackboard.platform.sql;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.stereotype.Component;

/**
 * The connection pool with the {@link ConnectionDeadline} check run as each connection is handed
 * out: a connection whose check refuses goes back to the pool at once, unused, and the refusal
 * is thrown instead. Everything else (the pool's metrics and health, unwrapping to Hikari's
 * beans) sees the pool through it; the context still closes the pool itself at shutdown (it
 * destroys the bean it created, not what a post-processor made of it).
 */
final class DeadlineDataSource extends DelegatingDataSource {

    DeadlineDataSource(DataSource pool) {
        super(pool);
    }

    /** Wraps the context's data source (the pool Spring Boot configures), and only it. */
    @Component
    static final class Wrapping implements BeanPostProcessor {

        @Override
        public Object postProcessAfterInitialization(Object bean, String name) {
            return bean instanceof DataSource pool && !(bean instanceof DeadlineDataSource)
                    && "dataSource".equals(name) ? new DeadlineDataSource(pool) : bean;
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        return checked(super.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return checked(super.getConnection(username, password));
    }

    private static Connection checked(Connection connection) throws SQLException {
        try {
            ConnectionDeadline.connected();
        } catch (RuntimeException | Error refused) {
            try {
                connection.close();
            } catch (SQLException | RuntimeException e) {
                refused.addSuppressed(e);
            }
            throw refused;
        }
        return connection;
    }
}
