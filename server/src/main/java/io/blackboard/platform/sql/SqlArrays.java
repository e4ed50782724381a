package io.blackboard.platform.sql;

import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.Collection;
import java.util.Objects;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Array parameters as PostgreSQL array literals, bound as text and cast in the statement. */
public final class SqlArrays {

    private SqlArrays() {
    }

    /** {@code {id1,id2}}, for {@code cast(:ids as uuid[])}. */
    public static String uuids(Collection<UUID> ids) {
        return literal(ids.stream());
    }

    /** {@code {id1,NULL}}, for {@code cast(:ids as uuid[])}; null elements stay NULL. */
    public static String uuids(UUID[] ids) {
        return literal(Arrays.stream(ids));
    }

    /** For {@code cast(:values as integer[])}; null elements stay NULL. */
    public static String integers(Integer[] values) {
        return literal(Arrays.stream(values));
    }

    /** For {@code cast(:times as timestamptz[])}, in ISO 8601 with the offset; null elements stay NULL. */
    public static String timestamps(OffsetDateTime[] times) {
        return literal(Arrays.stream(times));
    }

    /** Elements whose text needs no escaping (ids, numbers, ISO times), each quoted, or NULL. */
    private static String literal(Stream<?> values) {
        return values.map(v -> v == null ? "NULL" : "\"" + Objects.toString(v) + "\"")
                .collect(Collectors.joining(",", "{", "}"));
    }
}
