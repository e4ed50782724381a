package io.blackboard.platform.sql;

import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.Collection;
import java.util.UUID;
import org.springframework.jdbc.core.SqlParameterValue;

/** Array parameters as PostgreSQL array literals, bound untyped ({@link CastParams}) and cast in the statement. */
public final class SqlArrays {

    private SqlArrays() {
    }

    /** {@code {id1,id2}}, for {@code cast(:ids as uuid[])}. */
    public static SqlParameterValue uuids(Collection<UUID> ids) {
        return CastParams.text(literal(ids));
    }

    /** {@code {id1,NULL}}, for {@code cast(:ids as uuid[])}; null elements stay NULL. */
    public static SqlParameterValue uuids(UUID[] ids) {
        return CastParams.text(literal(Arrays.asList(ids)));
    }

    /** For {@code cast(:values as integer[])}; null elements stay NULL. */
    public static SqlParameterValue integers(Integer[] values) {
        return CastParams.text(literal(Arrays.asList(values)));
    }

    /** For {@code cast(:times as timestamptz[])}, in ISO 8601 with the offset; null elements stay NULL. */
    public static SqlParameterValue timestamps(OffsetDateTime[] times) {
        return CastParams.text(literal(Arrays.asList(times)));
    }

    /** Elements whose text needs no escaping (ids, numbers, ISO times), each quoted, or NULL. */
    private static String literal(Collection<?> values) {
        StringBuilder literal = new StringBuilder(2 + values.size() * 39); // a quoted id and its comma each
        literal.append('{');
        for (Object value : values) {
            if (literal.length() > 1) {
                literal.append(',');
            }
            if (value == null) {
                literal.append("NULL");
            } else {
                literal.append('"').append(value).append('"');
            }
        }
        return literal.append('}').toString();
    }
}
