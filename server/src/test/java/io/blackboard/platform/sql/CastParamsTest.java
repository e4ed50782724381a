package io.blackboard.platform.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blackboard.IntegrationTest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.StatementCreatorUtils;

/**
 * A document the statement casts goes to PostgreSQL without a type, so PostgreSQL gives the
 * parameter the cast's type (and reads the text once, when the statement is bound), bound as
 * Spring binds the stores' parameters.
 */
class CastParamsTest extends IntegrationTest {

    @Autowired
    DataSource dataSource;

    @Test
    void aCastParameterTakesTheCastsTypeWhereAStringWouldBeVarchar() throws Exception {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(
                        "select cast(? as jsonb), cast(? as jsonb)")) {
            StatementCreatorUtils.setParameterValue(statement, 1, CastParams.text("{\"a\": 1}"), null);
            statement.setString(2, "{\"a\": 1}");
            var types = statement.getParameterMetaData();
            assertThat(List.of(types.getParameterTypeName(1), types.getParameterTypeName(2)))
                    .containsExactly("jsonb", "varchar");
        }
    }

    @Test
    void aBoundDocumentReadsBackWhatWasBound() {
        assertThat(jdbc.sql("select x.n from jsonb_to_recordset(cast(:rows as jsonb)) as x(n int) order by x.n")
                .param("rows", CastParams.text("[{\"n\": 2}, {\"n\": 1}]")).query(Integer.class).list())
                .containsExactly(1, 2);
    }

    @Test
    void aNullIsRefusedBeforeItCostsARoundTrip() {
        assertThatThrownBy(() -> CastParams.text(null)).isInstanceOf(NullPointerException.class);
    }
}
