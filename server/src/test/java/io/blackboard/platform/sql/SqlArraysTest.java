package io.blackboard.platform.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The array literals the statements cast: each element quoted, a null element NULL, none at all
 * {@code {}}, a quote or backslash in a text escaped (read back by PostgreSQL in
 * {@link SqlArraysInDatabaseTest}).
 */
class SqlArraysTest {

    @Test
    void elementsAreQuotedInOrderAndNullsStayNull() {
        UUID a = UUID.fromString("0192d3a4-0000-7000-8000-000000000001");
        UUID b = UUID.fromString("0192d3a4-0000-7000-8000-000000000002");
        assertThat(SqlArrays.uuids(List.of(a, b))).isEqualTo("{\"" + a + "\",\"" + b + "\"}");
        assertThat(SqlArrays.uuids(new UUID[] {null, a})).isEqualTo("{NULL,\"" + a + "\"}");
        assertThat(SqlArrays.integers(new Integer[] {1, null, -3})).isEqualTo("{\"1\",NULL,\"-3\"}");
        assertThat(SqlArrays.timestamps(new OffsetDateTime[] {OffsetDateTime.parse("2026-11-29T07:00:00.5+01:00")}))
                .isEqualTo("{\"2026-11-29T07:00:00.500+01:00\"}");
        assertThat(SqlArrays.uuids(List.of())).isEqualTo("{}");
        assertThat(SqlArrays.integers(new Integer[] {null})).isEqualTo("{NULL}");
        assertThat(SqlArrays.texts(Arrays.asList("EXECUTE", "a\"b\\c", null)))
                .isEqualTo("{\"EXECUTE\",\"a\\\"b\\\\c\",NULL}");
    }
}
