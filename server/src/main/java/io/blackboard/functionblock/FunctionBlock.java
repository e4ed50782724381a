package io.blackboard.functionblock;

import java.util.UUID;
import org.springframework.lang.Nullable;

/** What other features need to know of a registered function block. */
public record FunctionBlock(UUID id, String name, String version, @Nullable String paramsJsonSchema,
        @Nullable String resultDataJsonSchema, boolean pure, boolean idempotent) {

    /** A server-side failure may run this block again without the engine noticing. */
    public boolean safeToRetry() {
        return pure || idempotent;
    }
}
