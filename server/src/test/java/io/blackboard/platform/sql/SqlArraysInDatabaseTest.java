package io.blackboard.platform.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.IntegrationTest;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The text array literal read by PostgreSQL gives back each element as it was, whatever its characters. */
class SqlArraysInDatabaseTest extends IntegrationTest {

    @Test
    void textsComeBackAsTheyWereWithQuotesBackslashesBracesAndNulls() {
        List<String> texts = Arrays.asList("EXECUTE", "a\"b", "back\\slash", "\\\"", "{x,y}", "comma, space ",
                "NULL", null, "", " ", "h\u00e9llo \u2603", "tab\there", "new\nline");

        List<String> read = jdbc.sql("select t from unnest(cast(:texts as text[])) with ordinality as x(t, n) order by n")
                .param("texts", SqlArrays.texts(texts)).query((rs, n) -> rs.getString(1)).list();

        assertThat(read).containsExactlyElementsOf(texts);
        assertThat(jdbc.sql("select cardinality(cast(:texts as text[]))").param("texts", SqlArrays.texts(List.of()))
                .query(Integer.class).single()).isZero();
    }
}
