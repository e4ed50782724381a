package io.blackboard.worker;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.springframework.http.ResponseEntity;
import org.springframework.lang.Nullable;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/workers")
@Tag(name = "Workers", description = "Registry and heartbeats (worker SDK), directives and cleanup (operators)")
class WorkerController {

    private final WorkerService workers;
    private final WorkerDirectory directory;
    private final WorkerProperties properties;

    WorkerController(WorkerService workers, WorkerDirectory directory, WorkerProperties properties) {
        this.directory = directory;
        this.workers = workers;
        this.properties = properties;
    }

    @Operation(summary = "Register a worker", description = "Answers the worker with its new id; it is ONLINE "
            + "with directive RUN. Register its function blocks next, then ping every pingIntervalMs.")
    @ApiResponse(responseCode = "201", description = "Registered")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(examples = @ExampleObject(value = """
            {"name": "cisco-worker", "hostname": "site-a-01", "ip": "10.0.0.7", "pid": 4242, "version": "1.4.0",
             "labels": {"site": "a", "vendor": "cisco"}, "concurrency": 2}""")))
    @PostMapping("/register")
    ResponseEntity<RegisteredWorker> register(@Valid @RequestBody RegisterWorker request) {
        RegisteredWorker registered = workers.register(request);
        return ResponseEntity.created(URI.create("/workers/" + registered.worker().id())).body(registered);
    }

    @Operation(summary = "Heartbeat", description = "Marks the worker ONLINE and answers its state, the "
            + "operator's directive and the held jobs to stop (cancelled by the engine or no longer its own). "
            + "activeJobIds (optional) extends those jobs' deadlines and releases claims the worker does not "
            + "know of. A 404 means the worker was deleted: register again.")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = false, content = @Content(
            examples = @ExampleObject(value = "{\"activeJobIds\": [\"01a20125-34eb-7000-8a3e-3c1f5e0b9d21\"]}")))
    @PostMapping("/{id}/ping")
    PingReply ping(@PathVariable UUID id, @Valid @RequestBody(required = false) @Nullable PingRequest request) {
        return workers.ping(id, request == null ? null : request.activeJobIds());
    }

    @Operation(summary = "Shut down gracefully", description = "OFFLINE at once; its POLLED jobs are failed "
            + "(or re-queued where safe) with WORKER_OFFLINE. Function blocks are kept; a later ping brings it back.")
    @PostMapping("/{id}/unregister")
    WorkerView unregister(@PathVariable UUID id) {
        return workers.unregister(id);
    }

    @Operation(summary = "List workers", description = "Registration order. state= filters (any case); "
            + "findDeleted=true includes soft-deleted workers. deaf: pings but has not polled for "
            + "BLACKBOARD_DEAF_AFTER_MS while jobs it could take wait.")
    @GetMapping
    List<WorkerView> list(@RequestParam(defaultValue = "false") boolean findDeleted,
            @RequestParam(required = false) @Nullable String state) {
        return directory.list(findDeleted, state == null ? null : WorkerState.parse(state));
    }

    @Operation(summary = "List ONLINE workers")
    @GetMapping("/online")
    List<WorkerView> online() {
        return directory.list(false, WorkerState.ONLINE);
    }

    @Operation(summary = "One worker", description = "State, last seen, labels, concurrency, held jobs, flags.")
    @GetMapping("/{id}")
    WorkerView get(@PathVariable UUID id) {
        return directory.find(id);
    }

    @Operation(summary = "Soft-delete a worker", description = "Its POLLED jobs are failed with WORKER_DELETED "
            + "(or re-queued where safe). Deleting a deleted worker again changes nothing.")
    @ApiResponse(responseCode = "204", description = "Deleted")
    @DeleteMapping("/{id}")
    ResponseEntity<Void> delete(@PathVariable UUID id) {
        workers.delete(id);
        return ResponseEntity.noContent().build();
    }

    @Operation(summary = "Set the operator's directive", description = "RUN, QUIET (finish held jobs, take no "
            + "new ones) or TERMINATE; returned in every ping reply. Only RUN workers are handed jobs.")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(
            examples = @ExampleObject(value = "{\"directive\": \"QUIET\"}")))
    @PutMapping("/{id}/directive")
    DirectiveReply direct(@PathVariable UUID id, @Valid @RequestBody DirectiveRequest request) {
        return workers.direct(id, request.directive());
    }

    @Operation(summary = "Delete long-OFFLINE workers", description = "Soft-deletes workers OFFLINE for longer "
            + "than WORKER_OFFLINE_DELETE_THRESHOLD_MS; answers how many.")
    @PostMapping("/cleanup")
    CleanupResult cleanup() {
        return new CleanupResult(workers.deleteOffline(properties.offlineDeleteThreshold()));
    }

    @Operation(summary = "Delete every OFFLINE worker", description = "Answers how many were soft-deleted.")
    @PostMapping("/cleanup-offline")
    CleanupResult cleanupOffline() {
        return new CleanupResult(workers.deleteOffline(Duration.ZERO));
    }
}
