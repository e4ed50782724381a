package io.blackboard.job;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.UUID;
import tools.jackson.databind.JsonNode;

/** {@code POST /blackboard/job/result}: a worker reports how a job it holds ended. */
record PushRequest(
        @NotNull UUID jobId,
        @NotNull UUID workerId,
        @Min(1) Integer attempt,
        @NotNull PushStatus status,
        JsonNode result,
        JsonNode acquires,
        JsonNode dbUpdates,
        JsonNode error) {
}
