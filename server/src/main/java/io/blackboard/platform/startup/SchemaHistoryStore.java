package io.blackboard.platform.startup;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The SQL of {@link CurrentSchema}: Flyway's schema history, read on the data source Flyway
 * uses (not the context's JdbcClient, which waits for the migration that this read decides on).
 */
final class SchemaHistoryStore {

    /** A history row, as {@link CurrentSchema} compares it. */
    record Applied(String description, String type, Integer checksum, boolean success) {
    }

    private final JdbcClient jdbc;

    SchemaHistoryStore(DataSource dataSource) {
        this.jdbc = JdbcClient.create(dataSource);
    }

    /** The rows by version (a row without one, such as a baseline's, makes it empty), or empty without the table. */
    Optional<Map<String, Applied>> applied(String table) {
        String regclass = jdbc.sql("""
                select cast(to_regclass(quote_ident(current_schema()) || '.' || quote_ident(:table)) as text)""")
                .param("table", table).query(String.class).list().getFirst(); // null without the table
        if (regclass == null) {
            return Optional.empty();
        }
        Map<String, Applied> rows = new HashMap<>();
        boolean[] complete = {true};
        jdbc.sql("select version, description, type, checksum, success from " + regclass).query(rs -> {
            String version = rs.getString("version");
            Integer checksum = (Integer) rs.getObject("checksum");
            if (version == null || rows.put(version, new Applied(rs.getString("description"), rs.getString("type"),
                    checksum, rs.getBoolean("success"))) != null) {
                complete[0] = false;
            }
        });
        return complete[0] ? Optional.of(rows) : Optional.empty();
    }
}
