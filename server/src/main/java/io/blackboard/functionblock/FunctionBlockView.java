package io.blackboard.functionblock;

import com.fasterxml.jackson.annotation.JsonRawValue;
import java.time.OffsetDateTime;
import java.util.UUID;

/** A function block with its stable id. Schemas are passed through as stored. */
record FunctionBlockView(UUID id, String name, String version,
        @JsonRawValue String paramsJsonSchema, @JsonRawValue String resultDataJsonSchema,
        boolean pure, boolean idempotent, String description, OffsetDateTime createdAt,
        @JsonRawValue String retryPolicy, Long executionTimeoutMs) {
}
