package io.blackboard.functionblock;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.UUID;

/** {@code POST /function-blocks/register}: the worker's whole set, replacing what it had. */
record RegisterFunctionBlocks(
        @NotNull UUID workerId,
        @NotNull @Size(max = 1000) List<@NotNull @Valid FunctionBlockSpec> functionBlocks) {
}
