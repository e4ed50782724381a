package io.blackboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.jdbc.core.namedparam.NamedParameterUtils;
import org.springframework.jdbc.core.namedparam.ParsedSql;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The plan PostgreSQL settles on for one of the stores' statements, to pin the index it must use.
 * The statement is prepared with its named parameters as positional ones, as the server's JDBC
 * driver prepares it on the server once it has run a few times, and explained as often as it
 * takes PostgreSQL to choose between a plan for these values and a generic one (five custom plans
 * first, then the generic one if it costs no more): the plan the server runs from then on. All in
 * a transaction with sequential scans off: a test table is small and a scan of it cheap, and the
 * index must be the plan's choice whatever the table's size.
 */
public record QueryPlan(JsonNode json) {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** The plan the server settles on for {@code sql} (with named parameters, as in the stores) and these values. */
    public static QueryPlan of(DataSource dataSource, String sql, SqlParameterSource params) throws SQLException {
        return explain(dataSource, sql, params, "auto", false, null);
    }

    /** The generic plan, for a statement the server runs with {@code plan_cache_mode = force_generic_plan}. */
    public static QueryPlan generic(DataSource dataSource, String sql, SqlParameterSource params) throws SQLException {
        return explain(dataSource, sql, params, "force_generic_plan", false, null);
    }

    /**
     * The generic plan PostgreSQL would make were {@code index} not there (dropped in the
     * explaining transaction, which is rolled back): which other index the statement can be
     * planned on, whatever the statistics say, as an index it must never read shows.
     */
    public static QueryPlan without(DataSource dataSource, String index, String sql, SqlParameterSource params)
            throws SQLException {
        return explain(dataSource, sql, params, "force_generic_plan", false, index);
    }

    /** As {@link #without}, the plan the server settles on ({@link #of}) rather than the generic one. */
    public static QueryPlan settledWithout(DataSource dataSource, String index, String sql, SqlParameterSource params)
            throws SQLException {
        return explain(dataSource, sql, params, "auto", false, index);
    }

    /**
     * The statement run once for these values under {@code EXPLAIN (ANALYZE, BUFFERS)}, in a
     * transaction rolled back after it: what it read, for {@link #buffersOf}.
     */
    public static QueryPlan analyze(DataSource dataSource, String sql, SqlParameterSource params) throws SQLException {
        return explain(dataSource, sql, params, "auto", true, null);
    }

    /** {@link #analyze}, of the generic plan: the one a prepared statement may settle on for any values. */
    public static QueryPlan analyzeGeneric(DataSource dataSource, String sql, SqlParameterSource params)
            throws SQLException {
        return explain(dataSource, sql, params, "force_generic_plan", true, null);
    }

    private static QueryPlan explain(DataSource dataSource, String sql, SqlParameterSource params,
            String planCacheMode, boolean analyze, String dropped) throws SQLException {
        Prepared prepared = Prepared.of(sql, params);
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            try {
                if (!analyze) {
                    statement.execute("set local enable_seqscan = off");
                }
                if (!analyze || !planCacheMode.equals("auto")) {
                    statement.execute("set local plan_cache_mode = " + planCacheMode);
                }
                if (dropped != null) {
                    statement.execute(dropIndex(statement, dropped));
                }
                statement.execute("prepare store_statement as " + prepared.sql());
                try {
                    return analyze
                            ? settled(statement, "explain (analyze, buffers, format json) execute store_statement"
                                    + prepared.arguments(), 1)
                            : settled(statement, "explain (format json) execute store_statement"
                                    + prepared.arguments(), 6);
                } finally {
                    connection.rollback(); // a prepared statement outlives its transaction
                    statement.execute("deallocate store_statement");
                }
            } finally {
                connection.rollback();
                connection.setAutoCommit(true);
            }
        }
    }

    /** The DDL that drops {@code index}: the constraint it backs, if any (a primary key, a unique constraint). */
    private static String dropIndex(Statement statement, String index) throws SQLException {
        try (ResultSet rs = statement.executeQuery("select conrelid::regclass::text from pg_constraint where conname = '"
                + index + "'")) {
            return rs.next() ? "alter table " + rs.getString(1) + " drop constraint " + index : "drop index " + index;
        }
    }

    /** Buffers (hit or read) of the scans of this index in an {@link #analyze analyzed} plan. */
    public long buffersOf(String index) {
        return json.findParents("Index Name").stream().filter(node -> node.get("Index Name").asString().equals(index))
                .mapToLong(node -> node.get("Shared Hit Blocks").asLong() + node.get("Shared Read Blocks").asLong())
                .sum();
    }

    /** Rows the scans of this table (by any index, or whole) returned in an {@link #analyze analyzed} plan, over all their loops. */
    public long rowsFrom(String table) {
        return json.findParents("Relation Name").stream()
                .filter(node -> node.get("Relation Name").asString().equals(table))
                .mapToLong(node -> node.get("Actual Rows").asLong() * node.get("Actual Loops").asLong())
                .sum();
    }

    /**
     * The plan of the last of {@code executions}: of the sixth, the plan PostgreSQL settles on (it
     * plans the first five for their values, then chooses).
     */
    private static QueryPlan settled(Statement statement, String explain, int executions) throws SQLException {
        String plan = null;
        for (int execution = 1; execution <= executions; execution++) {
            try (ResultSet rs = statement.executeQuery(explain)) {
                rs.next();
                plan = rs.getString(1);
            }
        }
        return new QueryPlan(JSON.readTree(plan));
    }

    /** Fails unless the plan probes each of these indexes (see {@link #probes}) and reads no table whole. */
    public void assertProbes(String... indexes) {
        assertThat(probes()).as(this::toString).contains(indexes);
        assertThat(seqScans()).as(this::toString).isEmpty();
    }

    /** Fails unless the plan reads each of these indexes, probed or walked in order, and reads no table whole. */
    public void assertReads(String... indexes) {
        assertThat(indexes()).as(this::toString).contains(indexes);
        assertThat(seqScans()).as(this::toString).isEmpty();
    }

    /** Every index the plan reads, in any of its nodes. */
    public Set<String> indexes() {
        return json.findValues("Index Name").stream().map(JsonNode::asString)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The indexes the plan probes with a condition: a look-up, not a walk through the whole index. */
    public Set<String> probes() {
        return json.findParents("Index Name").stream().filter(node -> node.has("Index Cond"))
                .map(node -> node.get("Index Name").asString())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /**
     * The condition of each read of this index in the plan, empty for a read without one (a walk
     * from one end). A condition on no leading column is a walk too: every entry is tested.
     */
    public List<String> conditionsOn(String index) {
        return json.findParents("Index Name").stream().filter(node -> node.get("Index Name").asString().equals(index))
                .map(node -> node.has("Index Cond") ? node.get("Index Cond").asString() : "").toList();
    }

    /** The tables the plan reads whole. */
    public Set<String> seqScans() {
        return json.findParents("Node Type").stream()
                .filter(node -> node.get("Node Type").asString().equals("Seq Scan"))
                .map(node -> node.get("Relation Name").asString())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Override
    public String toString() {
        return json.toPrettyString();
    }

    /** A store's statement as PREPARE's text and EXECUTE's argument list ({@code (a, b)}, or empty). */
    private record Prepared(String sql, String arguments) {

        static Prepared of(String sql, SqlParameterSource params) {
            ParsedSql parsed = NamedParameterUtils.parseSqlStatement(sql);
            String arguments = Arrays.stream(NamedParameterUtils.buildValueArray(parsed, params, null))
                    .map(QueryPlan::literal).collect(Collectors.joining(", "));
            return new Prepared(positional(NamedParameterUtils.substituteNamedParameters(parsed, params)),
                    arguments.isEmpty() ? "" : "(" + arguments + ")");
        }
    }

    /** JDBC's {@code ?} placeholders as PREPARE's {@code $1, $2, ...}; the stores' SQL has no other {@code ?}. */
    private static String positional(String sql) {
        StringBuilder out = new StringBuilder();
        int n = 0;
        for (char c : sql.toCharArray()) {
            out.append(c == '?' ? "$" + ++n : String.valueOf(c));
        }
        return out.toString();
    }

    /** A value as an untyped literal: PostgreSQL casts it to the type it inferred for the parameter. */
    private static String literal(Object value) {
        if (value instanceof SqlParameterValue typed) {
            return literal(typed.getValue());
        }
        if (value == null) {
            return "null";
        }
        String text = value instanceof byte[] bytes ? "\\x" + HexFormat.of().formatHex(bytes) : value.toString();
        return "'" + text.replace("'", "''") + "'";
    }
}
