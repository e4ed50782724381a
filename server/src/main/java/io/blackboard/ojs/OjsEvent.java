package io.blackboard.ojs;

import java.time.OffsetDateTime;
import java.util.UUID;
import org.springframework.lang.Nullable;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** One event of an OJS job's audit trail, in OJS's words ({@code job.enqueued}, {@code job.completed}, ...). */
record OjsEvent(long id, OffsetDateTime at, String type, UUID jobId, String jobType, String queue, int attempt,
        @Nullable String worker, @Nullable Long durationMs) {

    ObjectNode toJson(JsonMapper json) {
        ObjectNode shown = json.createObjectNode();
        shown.put("specversion", OjsHeaders.VERSION);
        shown.put("id", "evt_" + id);
        shown.put("seq", id);
        shown.put("type", type);
        shown.put("time", OjsJob.time(at));
        shown.put("subject", jobId.toString());
        ObjectNode data = shown.putObject("data");
        data.put("job_id", jobId.toString());
        data.put("job_type", jobType);
        data.put("queue", queue);
        data.put("attempt", attempt);
        if (worker != null) {
            data.put("worker_id", worker);
        }
        if (durationMs != null) {
            data.put("duration_ms", durationMs);
        }
        return shown;
    }
}
