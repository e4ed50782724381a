package io.blackboard.functionblock;

import com.fasterxml.jackson.annotation.JsonRawValue;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import tools.jackson.databind.JsonNode;

/** {@code POST /function-blocks/register}: the worker's whole set, replacing what it had. */
record RegisterFunctionBlocks(
        @NotNull UUID workerId,
        @NotNull @Size(max = 1000) List<@NotNull @Valid FunctionBlockSpec> functionBlocks) {
}

/** One function block as a worker declares it. */
record FunctionBlockSpec(
        @NotBlank @Size(max = 200) String name,
        @NotBlank @Size(max = 100) String version,
        JsonNode paramsJsonSchema,
        JsonNode resultDataJsonSchema,
        Boolean pure,
        Boolean idempotent,
        @Size(max = 10000) String description) {

    boolean isPure() {
        return Boolean.TRUE.equals(pure);
    }

    boolean isIdempotent() {
        return Boolean.TRUE.equals(idempotent);
    }
}

/** A function block with its stable id. Schemas are passed through as stored. */
record FunctionBlockView(UUID id, String name, String version,
        @JsonRawValue String paramsJsonSchema, @JsonRawValue String resultDataJsonSchema,
        boolean pure, boolean idempotent, String description, OffsetDateTime createdAt) {
}
