package io.blackboard.worker;

import io.blackboard.platform.security.WorkerAccess;
import io.blackboard.platform.web.DirectRoutes;
import io.blackboard.platform.web.NextPage;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
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
    private final WorkerHistory history;
    private final WorkerProperties properties;
    private final WorkerAccess access;

    WorkerController(WorkerService workers, WorkerDirectory directory, WorkerHistory history,
            WorkerProperties properties, WorkerAccess access) {
        this.directory = directory;
        this.workers = workers;
        this.history = history;
        this.properties = properties;
        this.access = access;
    }

    /** Who makes this change, for the worker's history. */
    private Actor actor() {
        return access.callerIsOperator() ? Actor.OPERATOR : Actor.WORKER;
    }

    @Operation(summary = "Register a worker", description = "Answers the worker with its new id; it is ONLINE "
            + "with directive RUN. Register its function blocks next, then ping every pingIntervalMs. A worker "
            + "registering again after the server deleted it may name its old id as previousWorkerId: each "
            + "history then names the other.")
    @ApiResponse(responseCode = "201", description = "Registered", headers = @Header(name = "Location",
            description = "/workers/{id}"))
    @ApiResponse(responseCode = "409", description = "previousWorkerId names a worker that is not deleted")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(examples = @ExampleObject(value = """
            {"name": "cisco-worker", "hostname": "site-a-01", "ip": "10.0.0.7", "pid": 4242, "version": "1.4.0",
             "labels": {"site": "a", "vendor": "cisco"}, "concurrency": 2}""")))
    @PostMapping("/register")
    ResponseEntity<RegisteredWorker> register(@Valid @RequestBody RegisterWorker request) {
        RegisteredWorker registered = workers.register(request, actor());
        return ResponseEntity.created(URI.create("/workers/" + registered.worker().id())).body(registered);
    }

    @Operation(summary = "Heartbeat", description = "Marks the worker ONLINE and answers its state, the "
            + "operator's directive and the held jobs to stop (cancelled by the engine or no longer its own). "
            + "activeJobIds (optional) extends those jobs' deadlines and releases claims the worker does not "
            + "know of. A 404 means the worker was deleted: register again.")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = false, content = @Content(
            examples = @ExampleObject(value = "{\"activeJobIds\": [\"01a20125-34eb-7000-8a3e-3c1f5e0b9d21\"]}")))
    @PostMapping("/{id}/ping")
    PingReply ping(@PathVariable UUID id, @Valid @RequestBody(required = false) @Nullable PingRequest request,
            HttpServletRequest http) {
        DirectRoutes.rethrowDirectFailure(http); // what its direct call threw (DirectWorkerRoutes), answered here
        return workers.ping(id, request == null ? null : request.activeJobIds());
    }

    @Operation(summary = "Shut down gracefully", description = "OFFLINE at once; its POLLED jobs are failed "
            + "(or re-queued where safe) with WORKER_OFFLINE. Function blocks are kept; a later ping brings it back.")
    @PostMapping("/{id}/unregister")
    WorkerView unregister(@PathVariable UUID id) {
        return workers.unregister(id, actor());
    }

    @Operation(summary = "List workers", description = "Registration order, a page of limit (default 1000); a full "
            + "page has a Link header (rel=next) to the next. state= filters (any case); "
            + "findDeleted=true includes soft-deleted workers. deaf: pings but has not polled for "
            + "BLACKBOARD_DEAF_AFTER_MS while jobs it could take wait.")
    @ApiResponse(responseCode = "200", description = "A page of workers", headers = @Header(name = "Link",
            description = "<the next page's URL>; rel=\"next\", when the page is full"))
    @GetMapping
    ResponseEntity<List<WorkerView>> list(@RequestParam(defaultValue = "false") boolean findDeleted,
            @RequestParam(required = false) @Nullable String state,
            @RequestParam(required = false) @Nullable String after,
            @RequestParam(defaultValue = "1000") @Min(1) @Max(1000) int limit) {
        return page(findDeleted, state == null ? null : WorkerState.parse(state), after, limit);
    }

    @Operation(summary = "List ONLINE workers", description = "Registration order; a full page has a Link header "
            + "(rel=next) to the next.")
    @ApiResponse(responseCode = "200", description = "A page of ONLINE workers", headers = @Header(name = "Link",
            description = "<the next page's URL>; rel=\"next\", when the page is full"))
    @GetMapping("/online")
    ResponseEntity<List<WorkerView>> online(@RequestParam(required = false) @Nullable String after,
            @RequestParam(defaultValue = "1000") @Min(1) @Max(1000) int limit) {
        return page(false, WorkerState.ONLINE, after, limit);
    }

    /** A page of workers in registration order; the Link header names the next. */
    private ResponseEntity<List<WorkerView>> page(boolean findDeleted, @Nullable WorkerState state,
            @Nullable String after, int limit) {
        List<WorkerView> found = directory.list(findDeleted, state,
                after == null ? null : NextPage.parsePosition(after), limit + 1);
        return NextPage.of(found, limit, worker -> NextPage.position(worker.registeredAt(), worker.id()));
    }

    @Operation(summary = "One worker", description = "State, last seen, labels, concurrency, held jobs, flags.")
    @GetMapping("/{id}")
    WorkerView get(@PathVariable UUID id) {
        return directory.find(id);
    }

    @Operation(summary = "A worker's history", description = "Every change of its state, directive or existence "
            + "(REGISTERED, ONLINE, UNREACHABLE, OFFLINE, DIRECTIVE, DELETED, REREGISTERED), oldest first, each with "
            + "the state and directive it left (fromState, fromDirective, where it changed them) and led to, who made "
            + "it (worker, operator or sweeper), why, and the database's time. Pings that change nothing are not in "
            + "it. A deleted worker's history stays readable; events are kept for WORKER_EVENT_RETENTION. Follow "
            + "'next' as 'after' for the next page; null on the last.")
    @ApiResponse(responseCode = "200", description = "A page of events")
    @ApiResponse(responseCode = "400", description = "A cursor this server did not return, or a limit outside 1-1000")
    @ApiResponse(responseCode = "404", description = "No worker was ever registered with this id")
    @GetMapping("/{id}/events")
    WorkerEventPage events(@PathVariable UUID id, @RequestParam(required = false) @Nullable String after,
            @RequestParam(defaultValue = "100") @Min(1) @Max(1000) int limit) {
        return history.page(id, after == null ? null : WorkerEventPage.Cursor.decode(after), limit);
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
        return new CleanupResult(workers.deleteOffline(properties.offlineDeleteThreshold(), Actor.OPERATOR, "cleanup"));
    }

    @Operation(summary = "Delete every OFFLINE worker", description = "Answers how many were soft-deleted.")
    @PostMapping("/cleanup-offline")
    CleanupResult cleanupOffline() {
        return new CleanupResult(workers.deleteOffline(Duration.ZERO, Actor.OPERATOR, "cleanup-offline"));
    }
}
