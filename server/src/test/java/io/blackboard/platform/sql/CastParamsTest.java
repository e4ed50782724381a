package io.blackboard.platform.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blackboard.IntegrationTest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.StatementCreatorUtils;

/**
 * A parameter the statement casts goes to PostgreSQL without a type, so PostgreSQL gives it the
 * cast's type (and reads the text once, when the statement is bound): the stores' JSON
 * documents and array literals, bound as Spring binds them.
 */
class CastParamsTest extends IntegrationTest {

    @Autowired
    DataSource dataSource;

    @Test
    void aCastParameterTakesTheCastsTypeWhereAStringWouldBeVarchar() throws Exception {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(
                        "select cast(? as jsonb), cast(? as uuid[]), cast(? as jsonb)")) {
            StatementCreatorUtils.setParameterValue(statement, 1, CastParams.text("{\"a\": 1}"), null);
            StatementCreatorUtils.setParameterValue(statement, 2, SqlArrays.uuids(List.of(UUID.randomUUID())), null);
            statement.setString(3, "{\"a\": 1}");
            var types = statement.getParameterMetaData();
            assertThat(List.of(types.getParameterTypeName(1), types.getParameterTypeName(2),
                    types.getParameterTypeName(3))).containsExactly("jsonb", "_uuid", "varchar");
        }
    }

    @Test
    void theStoresBindingsReadBackWhatWasBound() {
        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        assertThat(jdbc.sql("select cast(cast(:ids as uuid[]) as text)").param("ids", SqlArrays.uuids(List.of(a, b)))
                .query(String.class).single()).isEqualTo("{" + a + "," + b + "}");
        assertThat(jdbc.sql("select x.n from jsonb_to_recordset(cast(:rows as jsonb)) as x(n int) order by x.n")
                .param("rows", CastParams.text("[{\"n\": 2}, {\"n\": 1}]")).query(Integer.class).list())
                .containsExactly(1, 2);
        assertThat(jdbc.sql("select cardinality(cast(:values as integer[]))")
                .param("values", SqlArrays.integers(new Integer[] {1, null})).query(Integer.class).single()).isEqualTo(2);
    }

    @Test
    void aNullIsRefusedBeforeItCostsARoundTrip() {
        assertThatThrownBy(() -> CastParams.text(null)).isInstanceOf(NullPointerException.class);
    }
}
