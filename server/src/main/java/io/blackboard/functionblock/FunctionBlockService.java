package io.blackboard.functionblock;

import io.blackboard.platform.sql.Ids;
import io.blackboard.worker.WorkerDirectory;
import io.blackboard.worker.WorkerNotFound;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Function blocks are shared: the same (name, version) from many workers is one block with
 * one stable id, and its contract (schemas, pure, idempotent, retry policy, execution timeout)
 * can never change under it.
 */
@Service
public class FunctionBlockService {

    private static final Logger log = LoggerFactory.getLogger(FunctionBlockService.class);

    private final FunctionBlockStore store;
    private final JsonMapper json;
    private final WorkerDirectory workers;
    private final Schemas schemas;

    FunctionBlockService(FunctionBlockStore store, JsonMapper json, WorkerDirectory workers, Schemas schemas) {
        this.schemas = schemas;
        this.store = store;
        this.json = json;
        this.workers = workers;
    }

    /** Registers the worker's whole set in one transaction: any conflict leaves everything as it was. */
    @Transactional
    List<FunctionBlockView> register(RegisterFunctionBlocks request) {
        if (!store.lockWorker(request.workerId())) {
            throw new WorkerNotFound(request.workerId());
        }
        Map<String, UUID> ids = new LinkedHashMap<>();
        for (FunctionBlockSpec spec : request.functionBlocks()) {
            UUID id = upsert(spec);
            UUID earlier = ids.putIfAbsent(spec.name() + "@" + spec.version(), id);
            if (earlier != null && !earlier.equals(id)) {
                throw new InvalidFunctionBlock("Function block %s@%s is listed twice"
                        .formatted(spec.name(), spec.version()));
            }
        }
        store.replaceWorkerSet(request.workerId(), ids.values());
        log.info("Worker {} serves {} function blocks", request.workerId(), ids.size());
        return store.findByWorker(request.workerId());
    }

    private UUID upsert(FunctionBlockSpec spec) {
        String params = schema(spec, "paramsJsonSchema", spec.paramsJsonSchema());
        String result = schema(spec, "resultDataJsonSchema", spec.resultDataJsonSchema());
        String retryPolicy = spec.retryPolicy() == null ? null : json.writeValueAsString(spec.retryPolicy().complete(null));
        Optional<UUID> inserted = store.insert(Ids.newId(), spec, params, result, retryPolicy);
        if (inserted.isPresent()) {
            log.info("Function block {}@{} registered as {}", spec.name(), spec.version(), inserted.get());
            return inserted.get();
        }
        FunctionBlockStore.Comparison existing = store.compare(spec, params, result, retryPolicy);
        if (!existing.same()) {
            throw new FunctionBlockConflict(spec.name(), spec.version(), existing.id());
        }
        return existing.id();
    }

    private @Nullable String schema(FunctionBlockSpec spec, String field, @Nullable JsonNode schema) {
        if (schema == null || schema.isNull()) {
            return null;
        }
        List<String> problems = schemas.problemsOf(schema);
        if (!problems.isEmpty()) {
            throw new InvalidFunctionBlock("%s of %s@%s is not a valid JSON Schema: %s"
                    .formatted(field, spec.name(), spec.version(), String.join("; ", problems)));
        }
        return json.writeValueAsString(schema);
    }

    @Transactional(readOnly = true)
    FunctionBlockView find(UUID id) {
        return store.find(id).orElseThrow(() -> new FunctionBlockNotFound(id));
    }

    @Transactional(readOnly = true)
    List<FunctionBlockView> byWorker(UUID workerId) {
        workers.requireRegistered(workerId);
        return store.findByWorker(workerId);
    }

    /** Every block with its queue depth, oldest PENDING age and routability, by name and version. */
    @Transactional(readOnly = true)
    public List<CatalogEntry> catalog() {
        return store.catalog();
    }

    /** Every registered version of each of these names, newest registered first. */
    @Transactional(readOnly = true)
    public List<BlockVersion> versionsNamed(Collection<String> names) {
        return names.isEmpty() ? List.of() : store.versions(json.writeValueAsString(names));
    }

    /** The block, as other features need it; empty when no block has that id. */
    @Transactional(readOnly = true)
    public Optional<FunctionBlock> lookup(UUID id) {
        return store.find(id).map(view -> new FunctionBlock(view.id(), view.name(), view.version(),
                view.paramsJsonSchema(), view.resultDataJsonSchema(), view.pure(), view.idempotent()));
    }
}
