package io.blackboard;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * A row locked {@code FOR UPDATE} by a transaction on a connection of its own, as a concurrent
 * request would hold it, until {@link #close()} rolls that transaction back.
 */
public final class RowLock implements AutoCloseable {

    private final Connection connection;

    private RowLock(Connection connection) {
        this.connection = connection;
    }

    /** Locks the row of {@code table} with this id. */
    public static RowLock hold(DataSource dataSource, String table, UUID id) throws SQLException {
        Connection connection = dataSource.getConnection();
        String sql = "select 1 from " + table + " where id = ? for update";
        try (PreparedStatement lock = connection.prepareStatement(sql)) {
            connection.setAutoCommit(false);
            lock.setObject(1, id);
            lock.executeQuery().close();
            return new RowLock(connection);
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    @Override
    public void close() throws SQLException {
        try (connection) {
            connection.rollback();
        }
    }
}
