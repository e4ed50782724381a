package io.blackboard.job;

import io.blackboard.functionblock.RetryPolicy;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.lang.Nullable;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.json.JsonMapper;

/**
 * One job a create inserts, checked and complete: its id, what the engine asked for, and what
 * the server settled (the attempts and retry policy, the timeout, the blocks a name and versions
 * matched). {@link #document} writes a batch of them as the insert's JSON document.
 */
record NewJob(UUID id, CreateJob job, int maxAttempts, @Nullable RetryPolicy retryPolicy,
        @Nullable Long executionTimeoutMs, @Nullable List<UUID> blockChoices) {

    /**
     * The document {@link JobStore#insert} reads ({@code jsonb_to_recordset}): one object per job,
     * {@code ord} its position. Written field by field, straight from the records: through a map
     * per job and Jackson's map serializer it took a fifth of the server's CPU on a 1,000-job
     * create (BENCHMARKS.md). A field without a value is left out: the recordset reads it as null.
     */
    static String document(JsonMapper json, List<NewJob> jobs) {
        StringWriter out = new StringWriter(jobs.size() * 320);
        try (JsonGenerator generator = json.createGenerator(out)) {
            generator.writeStartArray();
            for (int ord = 0; ord < jobs.size(); ord++) {
                jobs.get(ord).write(generator, ord);
            }
            generator.writeEndArray();
        }
        return out.toString();
    }

    private void write(JsonGenerator out, int ord) {
        out.writeStartObject();
        out.writeNumberProperty("ord", ord);
        out.writeStringProperty("id", id.toString());
        out.writeStringProperty("function_block_id", job.functionBlockId().toString());
        out.writeStringProperty("type", job.type().name());
        out.writeName("payload");
        if (job.payload() == null || job.payload().isNull()) {
            out.writeStartObject();
            out.writeEndObject();
        } else {
            out.writeTree(job.payload());
        }
        out.writeNumberProperty("priority", job.priority() == null ? 0 : job.priority());
        out.writeNumberProperty("max_attempts", maxAttempts);
        writeSelector(out);
        writeGiven(out);
        out.writeEndObject();
    }

    private void writeSelector(JsonGenerator out) {
        out.writeName("selector");
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
    }
}
