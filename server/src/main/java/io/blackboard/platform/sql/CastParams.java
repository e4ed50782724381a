package io.blackboard.platform.sql;

import java.sql.Types;
import java.util.Objects;
import org.springframework.jdbc.core.SqlParameterValue;

/**
 * Text parameters that the statement casts to an immutable type ({@code cast(:jobs as jsonb)}),
 * bound without a type of their own: PostgreSQL gives the parameter the cast's type and reads
 * the text into it once, when the statement is bound. Bound as a String (varchar), the cast
 * stays in the plan as a conversion of the text; through the driver's prepared statements (the
 * plan cache deciding between custom and generic plans), each execution then cost more the
 * longer the text was: a create of 1,000 jobs took PostgreSQL 37-45 us per job instead of 18-19,
 * in memory allocation and copying. Only for a parameter that appears nowhere but inside such a
 * cast: elsewhere ({@code :x is null}) PostgreSQL could not tell its type. Not for arrays
 * ({@link SqlArrays} says why), nor for the batch push's document of tens of rows, where the
 * benchmark showed no gain.
 */
public final class CastParams {

    private CastParams() {
    }

    /**
     * {@code text}, bound untyped. Never null: Spring asks the driver for the type of an untyped
     * NULL, a round trip of its own.
     */
    public static SqlParameterValue text(String text) {
        return new SqlParameterValue(Types.OTHER, Objects.requireNonNull(text, "text"));
    }
}
