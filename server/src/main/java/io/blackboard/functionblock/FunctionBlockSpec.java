package io.blackboard.functionblock;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import tools.jackson.databind.JsonNode;

/**
 * One function block as a worker declares it; {@code retryPolicy} and {@code executionTimeoutMs}
 * are the defaults of its jobs.
 */
record FunctionBlockSpec(
        @NotBlank @Size(max = 200) String name,
        @NotBlank @Size(max = 100) String version,
        JsonNode paramsJsonSchema,
        JsonNode resultDataJsonSchema,
        Boolean pure,
        Boolean idempotent,
        @Size(max = 10000) String description,
        @Valid RetryPolicy retryPolicy,
        @Min(1) @Max(31L * 24 * 3600 * 1000) Long executionTimeoutMs) {

    boolean isPure() {
        return Boolean.TRUE.equals(pure);
    }

    boolean isIdempotent() {
        return Boolean.TRUE.equals(idempotent);
    }
}
