package io.blackboard.functionblock;

import io.blackboard.platform.security.WorkerAccess;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import java.util.List;
import java.util.UUID;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "Function blocks", description = "What workers can run, shared by (name, version); the catalog")
class FunctionBlockController {

    private final FunctionBlockService functionBlocks;
    private final WorkerAccess access;

    FunctionBlockController(FunctionBlockService functionBlocks, WorkerAccess access) {
        this.access = access;
        this.functionBlocks = functionBlocks;
    }

    @Operation(summary = "Register a worker's function blocks", description = "Replaces the worker's whole set "
            + "in one transaction. The same (name, version) from many workers is one block with one stable id.")
    @ApiResponse(responseCode = "200", description = "The worker's function blocks, each with its stable id")
    @ApiResponse(responseCode = "404", description = "No such worker (unknown or deleted)")
    @ApiResponse(responseCode = "409", description = "The (name, version) exists with other schemas or flags: "
            + "publish a new version")
    @ApiResponse(responseCode = "422", description = "A schema that is not a JSON Schema, or a block listed twice")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(examples = @ExampleObject(value = """
            {"workerId": "01a2011d-6ef8-77fd-9a3c-2b4e1f0a7c55",
             "functionBlocks": [{"name": "configBackup", "version": "1.0.0", "idempotent": true,
                                 "description": "Backs up a device configuration",
                                 "paramsJsonSchema": {"type": "object", "required": ["host"],
                                                      "properties": {"host": {"type": "string"}}},
                                 "resultDataJsonSchema": {"type": "object"}}]}""")))
    @PostMapping("/function-blocks/register")
    List<FunctionBlockView> register(@Valid @RequestBody RegisterFunctionBlocks request) {
        access.requireMayActAs(request.workerId());
        return functionBlocks.register(request);
    }

    @Operation(summary = "The catalog", description = "Every block with its ONLINE workers and queue: pending, "
            + "polled, oldestPendingAgeMs (null when nothing waits) and unroutable (PENDING jobs no ONLINE RUN "
            + "worker serving the block can take: none at all, or none whose labels contain their selector).")
    @GetMapping("/function-blocks")
    List<CatalogEntry> catalog() {
        return functionBlocks.catalog();
    }

    @Operation(summary = "One function block, with its schemas")
    @GetMapping("/function-blocks/{id}")
    FunctionBlockView get(@PathVariable UUID id) {
        return functionBlocks.find(id);
    }

    @Operation(summary = "The function blocks a worker registered")
    @GetMapping("/workers/{id}/function-blocks")
    List<FunctionBlockView> byWorker(@PathVariable UUID id) {
        return functionBlocks.byWorker(id);
    }
}
