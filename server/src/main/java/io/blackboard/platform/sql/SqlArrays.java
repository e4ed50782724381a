package io.blackboard.platform.sql;

import java.util.Collection;
import java.util.UUID;
import java.util.stream.Collectors;

/** Array parameters as PostgreSQL array literals, bound as text and cast in the statement. */
public final class SqlArrays {

    private SqlArrays() {
    }

    /** {@code {id1,id2}}, for {@code cast(:ids as uuid[])}. */
    public static String uuids(Collection<UUID> ids) {
        return ids.stream().map(UUID::toString).collect(Collectors.joining(",", "{", "}"));
    }
}
