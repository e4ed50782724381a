package io.blackboard.worker;

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
class WorkerController {

    private final WorkerService workers;
    private final WorkerProperties properties;

    WorkerController(WorkerService workers, WorkerProperties properties) {
        this.workers = workers;
        this.properties = properties;
    }

    @PostMapping("/register")
    ResponseEntity<RegisteredWorker> register(@Valid @RequestBody RegisterWorker request) {
        RegisteredWorker registered = workers.register(request);
        return ResponseEntity.created(URI.create("/workers/" + registered.worker().id())).body(registered);
    }

    @PostMapping("/{id}/ping")
    PingReply ping(@PathVariable UUID id, @Valid @RequestBody(required = false) @Nullable PingRequest request) {
        return workers.ping(id, request == null ? null : request.activeJobIds());
    }

    @PostMapping("/{id}/unregister")
    WorkerView unregister(@PathVariable UUID id) {
        return workers.unregister(id);
    }

    @GetMapping
    List<WorkerView> list(@RequestParam(defaultValue = "false") boolean findDeleted,
            @RequestParam(required = false) @Nullable String state) {
        return workers.list(findDeleted, state == null ? null : WorkerState.parse(state));
    }

    @GetMapping("/online")
    List<WorkerView> online() {
        return workers.list(false, WorkerState.ONLINE);
    }

    @GetMapping("/{id}")
    WorkerView get(@PathVariable UUID id) {
        return workers.find(id);
    }

    @DeleteMapping("/{id}")
    ResponseEntity<Void> delete(@PathVariable UUID id) {
        workers.delete(id);
        return ResponseEntity.noContent().build();
    }

    @PutMapping("/{id}/directive")
    DirectiveReply direct(@PathVariable UUID id, @Valid @RequestBody DirectiveRequest request) {
        return workers.direct(id, request.directive());
    }

    @PostMapping("/cleanup")
    CleanupResult cleanup() {
        return new CleanupResult(workers.deleteOffline(properties.offlineDeleteThreshold()));
    }

    @PostMapping("/cleanup-offline")
    CleanupResult cleanupOffline() {
        return new CleanupResult(workers.deleteOffline(Duration.ZERO));
    }
}
