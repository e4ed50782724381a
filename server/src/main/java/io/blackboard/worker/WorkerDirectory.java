package io.blackboard.worker;

import io.blackboard.platform.web.NextPage;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reading the registry: one worker, the list, the census, and the checks other features make
 * before they act for a worker. Nothing here writes; {@link WorkerService} does.
 */
@Service
public class WorkerDirectory {

    private static final TypeReference<Map<String, String>> LABELS = new TypeReference<>() { };

    private final WorkerDirectoryStore store;
    private final WorkerProperties properties;
    private final JsonMapper json;

    WorkerDirectory(WorkerDirectoryStore store, WorkerProperties properties, JsonMapper json) {
        this.store = store;
        this.properties = properties;
        this.json = json;
    }

    /** Throws {@link WorkerNotFound} unless the worker is registered and not deleted. */
    @Transactional(readOnly = true)
    public void requireRegistered(UUID id) {
        if (!store.live(id).orElse(false)) {
            throw new WorkerNotFound(id);
        }
    }

    /** Throws {@link WorkerNotFound} unless the worker was ever registered (deleted ones count). */
    @Transactional(readOnly = true)
    public void requireKnown(UUID id) {
        if (store.live(id).isEmpty()) {
            throw new WorkerNotFound(id);
        }
    }

    /** Whether the worker is registered and not deleted. */
    @Transactional(readOnly = true)
    boolean isRegistered(UUID id) {
        return store.live(id).orElse(false);
    }

    /** The worker, deleted or not; {@link WorkerNotFound} if it was never registered. */
    @Transactional(readOnly = true)
    public WorkerView find(UUID id) {
        Set<UUID> deaf = store.deaf(id, properties.deafAfter());
        return store.find(id).map(row -> view(row, deaf)).orElseThrow(() -> new WorkerNotFound(id));
    }

    /** Workers in registration order, deleted ones only when asked, optionally of one state. */
    @Transactional(readOnly = true)
    public List<WorkerView> list(boolean includeDeleted, @Nullable WorkerState state) {
        return list(includeDeleted, state, null, Integer.MAX_VALUE);
    }

    /** The same, after a position in registration order, at most {@code limit}. */
    @Transactional(readOnly = true)
    public List<WorkerView> list(boolean includeDeleted, @Nullable WorkerState state,
            @Nullable NextPage.Position after, int limit) {
        List<WorkerRow> found = store.list(includeDeleted, state, after == null ? null : after.at(),
                after == null ? null : after.id(), limit);
        Set<UUID> deaf = store.deaf(null, properties.deafAfter());
        return found.stream().map(row -> view(row, deaf)).toList();
    }

    /** Live workers by state, and the deaf ones among them. */
    @Transactional(readOnly = true)
    public WorkerCensus census() {
        return new WorkerCensus(store.countByState(), store.deaf(null, properties.deafAfter()).size());
    }

    private WorkerView view(WorkerRow row, Set<UUID> deaf) {
        return new WorkerView(row.id(), row.name(), row.hostname(), row.ip(), row.pid(), row.version(),
                row.sdkName(), row.sdkVersion(), json.readValue(row.labels(), LABELS), row.concurrency(), row.state(),
                row.directive(), row.registeredAt(), row.lastSeenAt(), row.stateChangedAt(), row.lastPolledAt(), row.deletedAt(),
                row.heldJobs(), deaf.contains(row.id()));
    }
}
