package io.blackboard.job;

import io.blackboard.functionblock.RetryPolicy;
import io.blackboard.platform.sql.CastParams;
import io.blackboard.platform.sql.SqlArrays;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.lang.Nullable;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.json.JsonMapper;

/**
 * One job a create inserts, checked and complete: its id, what the engine asked for, and what
 * the server settled (the attempts and retry policy, the timeout, the blocks a name and versions
 * matched). {@link #columns} writes a batch of them as the insert's parameters.
 */
record NewJob(UUID id, CreateJob job, int maxAttempts, @Nullable RetryPolicy retryPolicy,
        @Nullable Long executionTimeoutMs, @Nullable List<UUID> blockChoices) {

    /** A batch of jobs as {@link JobStore#INPUT} reads it, written by {@link #columns}. */
    record Columns(String ids, String blocks, String types, String priorities, String maxAttempts,
            String payloads, String selectors, String given) {

        /** The statement's parameters: arrays as text cast in the statement, JSON untyped. */
        Map<String, Object> params() {
            return Map.of("ids", ids, "blocks", blocks, "types", types, "priorities", priorities,
                    "maxAttempts", maxAttempts, "payloads", CastParams.text(payloads),
                    "selectors", CastParams.text(selectors), "given", CastParams.text(given));
        }
    }

    /**
     * The jobs as the insert's input, a column each, in the jobs' order: the columns every job
     * has as arrays (ids, function blocks, types, priorities, attempts), the JSON ones as JSON
     * arrays (payloads, selectors), and the fields only some jobs have ({@code given}) as one
     * object per job, empty for a plain one. PostgreSQL reads arrays of ids and numbers for a
     * fraction of what one document of the same jobs costs it: through pgjdbc alone, a
     * 1,000-job batch's input took 3.4-5.1 us per job this way against 5.5-12 as one object per
     * job (BENCHMARKS.md).
     */
    static Columns columns(JsonMapper json, List<NewJob> jobs) {
        List<UUID> ids = new ArrayList<>(jobs.size());
        List<UUID> blocks = new ArrayList<>(jobs.size());
        List<String> types = new ArrayList<>(jobs.size());
        Integer[] priorities = new Integer[jobs.size()];
        Integer[] maxAttempts = new Integer[jobs.size()];
        StringWriter payloads = new StringWriter(jobs.size() * 16);
        StringWriter selectors = new StringWriter(jobs.size() * 3);
        StringWriter given = new StringWriter(jobs.size() * 3);
        try (JsonGenerator payload = json.createGenerator(payloads);
                JsonGenerator selector = json.createGenerator(selectors);
                JsonGenerator rest = json.createGenerator(given)) {
            payload.writeStartArray();
            selector.writeStartArray();
            rest.writeStartArray();
            for (int i = 0; i < jobs.size(); i++) {
                NewJob row = jobs.get(i);
                ids.add(row.id);
                blocks.add(row.job.functionBlockId());
                types.add(row.job.type().name());
                priorities[i] = row.job.priority() == null ? 0 : row.job.priority();
                maxAttempts[i] = row.maxAttempts;
                row.writePayload(payload);
                row.writeSelector(selector);
                row.writeGiven(rest);
            }
            payload.writeEndArray();
            selector.writeEndArray();
            rest.writeEndArray();
        }
        return new Columns(SqlArrays.uuids(ids), SqlArrays.uuids(blocks), SqlArrays.texts(types),
                SqlArrays.integers(priorities), SqlArrays.integers(maxAttempts), payloads.toString(),
                selectors.toString(), given.toString());
    }

    private void writePayload(JsonGenerator out) {
        if (job.payload() == null || job.payload().isNull()) {
            out.writeStartObject();
            out.writeEndObject();
        } else {
            out.writeTree(job.payload());
        }
    }

    private void writeSelector(JsonGenerator out) {
        out.writeStartObject();
        if (job.selector() != null) {
            for (Map.Entry<String, String> label : job.selector().entrySet()) {
                out.writeStringProperty(label.getKey(), label.getValue());
            }
        }
        out.writeEndObject();
    }

    /** The fields that have a value only when the engine or the function block gave one. */
    private void writeGiven(JsonGenerator out) {
        out.writeStartObject();
        if (job.correlationId() != null) {
            out.writeStringProperty("correlation_id", job.correlationId());
        }
        if (job.idempotencyKey() != null) {
            out.writeStringProperty("idempotency_key", job.idempotencyKey());
        }
        if (job.runAt() != null) {
            out.writePOJOProperty("run_at", job.runAt());
        }
        if (job.delayMs() != null) {
            out.writeNumberProperty("delay_ms", job.delayMs());
        }
        if (retryPolicy != null) {
            out.writePOJOProperty("retry_policy", retryPolicy);
        }
        if (executionTimeoutMs != null) {
            out.writeNumberProperty("execution_timeout_ms", executionTimeoutMs);
        }
        if (blockChoices != null) {
            out.writeName("block_choices");
            out.writeStartArray();
            for (UUID block : blockChoices) {
                out.writeString(block.toString());
            }
            out.writeEndArray();
        }
        out.writeEndObject();
    }
}
