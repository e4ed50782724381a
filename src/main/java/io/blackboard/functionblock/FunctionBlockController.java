package io.blackboard.functionblock;

import jakarta.validation.Valid;
import java.util.List;
import java.util.UUID;
import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
class FunctionBlockController {

    private final FunctionBlockService functionBlocks;

    FunctionBlockController(FunctionBlockService functionBlocks) {
        this.functionBlocks = functionBlocks;
    }

    @PostMapping("/function-blocks/register")
    @PreAuthorize("@workerAccess.mayActAs(#request.workerId())")
    List<FunctionBlockView> register(@Valid @RequestBody RegisterFunctionBlocks request) {
        return functionBlocks.register(request);
    }

    @GetMapping("/function-blocks")
    List<CatalogEntry> catalog() {
        return functionBlocks.catalog();
    }

    @GetMapping("/function-blocks/{id}")
    FunctionBlockView get(@PathVariable UUID id) {
        return functionBlocks.find(id);
    }

    @GetMapping("/workers/{id}/function-blocks")
    List<FunctionBlockView> byWorker(@PathVariable UUID id) {
        return functionBlocks.byWorker(id);
    }
}
