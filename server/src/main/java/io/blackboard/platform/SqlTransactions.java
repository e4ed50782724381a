package io.blackboard.platform;

import javax.sql.DataSource;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Plain JDBC transactions for a hot path that runs only SQL through {@code JdbcClient}: the
 * poll's worker lock and claim, a ping's lease work, a create with idempotency keys. The
 * application's transaction manager is JPA's, which opens, flushes and closes a Hibernate
 * session around every transaction, however little it does.
 * Inside one of these, call no JPA repository and no {@code @Transactional} bean: they would
 * start a transaction of their own on another connection.
 * <p>The manager is not a bean, so Spring Boot's JPA transaction manager stays the default.
 */
@Component
public class SqlTransactions {

    private final TransactionTemplate template;

    SqlTransactions(DataSource dataSource) {
        this.template = new TransactionTemplate(new JdbcTransactionManager(dataSource));
    }

    public <T> T execute(TransactionCallback<T> action) {
        return template.execute(action);
    }
}
