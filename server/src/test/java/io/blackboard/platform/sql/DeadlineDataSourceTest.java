package io.blackboard.platform.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.blackboard.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.context.support.GenericApplicationContext;

/**
 * The pool behind {@link DeadlineDataSource}, in a context of its own, as Spring Boot's pool is
 * declared: a thread's armed check runs once, on its next connection only; a refused connection
 * goes back to the pool unused; a check taken off the thread (by a coalesced batch) is not run
 * there; and closing the context still closes the pool.
 */
class DeadlineDataSourceTest {

    static final class Refused extends RuntimeException {
        Refused() {
            super("refused");
        }
    }

    GenericApplicationContext context;
    HikariDataSource pool;
    DataSource dataSource;

    @BeforeEach
    void startContext() {
        TestPostgres.Connection connection = TestPostgres.shared();
        pool = new HikariDataSource();
        pool.setJdbcUrl(connection.url());
        pool.setUsername(connection.user());
        pool.setPassword(connection.password());
        pool.setMaximumPoolSize(2);
        context = new GenericApplicationContext();
        context.registerBean(DeadlineDataSource.Wrapping.class);
        context.registerBean("dataSource", HikariDataSource.class, () -> pool,
                definition -> definition.setDestroyMethodName(AbstractBeanDefinition.INFER_METHOD));
        context.refresh();
        dataSource = context.getBean(DataSource.class);
    }

    @AfterEach
    void stopContext() {
        ConnectionDeadline.clear();
        context.close();
    }

    @Test
    void theContextsPoolIsWrappedAndClosedWithIt() throws SQLException {
        assertThat(dataSource).isInstanceOf(DeadlineDataSource.class);
        assertThat(dataSource.unwrap(HikariDataSource.class)).isSameAs(pool);
        context.close();
        assertThat(pool.isClosed()).as("the pool closed with the context").isTrue();
    }

    /** A deadline that has passed, counting the times it was asked. */
    static ConnectionDeadline.Armed counting(AtomicInteger asked) {
        return new ConnectionDeadline.Armed(() -> asked.incrementAndGet() < 0, () -> {
        });
    }

    static ConnectionDeadline.Armed passed() {
        return new ConnectionDeadline.Armed(() -> true, () -> {
            throw new Refused();
        });
    }

    @Test
    void aCheckRunsOnceOnTheThreadsNextConnection() throws SQLException {
        AtomicInteger ran = new AtomicInteger();
        ConnectionDeadline.beforeFirstConnection(counting(ran));
        try (Connection first = dataSource.getConnection(); Connection second = dataSource.getConnection()) {
            assertThat(first.isValid(1)).isTrue();
            assertThat(second.isValid(1)).isTrue();
        }
        assertThat(ran).hasValue(1);

        ConnectionDeadline.beforeFirstConnection(counting(ran));
        try (ExecutorService other = Executors.newVirtualThreadPerTaskExecutor()) {
            CompletableFuture.runAsync(() -> {
                try (Connection connection = dataSource.getConnection()) {
                    assertThat(connection.isValid(1)).isTrue();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }, other).join();
        }
        assertThat(ran).as("another thread's connection").hasValue(1);
        ConnectionDeadline.clear();
        try (Connection connection = dataSource.getConnection()) {
            assertThat(ran).as("cleared").hasValue(1);
        }
    }

    @Test
    void aRefusedConnectionGoesBackToThePoolUnused() throws Exception {
        ConnectionDeadline.beforeFirstConnection(passed());
        assertThatThrownBy(dataSource::getConnection).isInstanceOf(Refused.class);
        assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
        try (Connection again = dataSource.getConnection()) {
            assertThat(again.isValid(1)).as("the check ran once: the next connection is served").isTrue();
        }
    }

    @Test
    void aCheckTakenOffTheThreadIsNotRunThere() throws SQLException {
        ConnectionDeadline.beforeFirstConnection(passed());
        assertThat(ConnectionDeadline.take()).isNotNull();
        try (Connection connection = dataSource.getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
        }
        assertThat(ConnectionDeadline.take()).isNull();
    }
}
