package io.blackboard.job;

import com.fasterxml.jackson.annotation.JsonRawValue;
import io.blackboard.platform.ServerVersion;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.http.ProblemDetail;
import tools.jackson.databind.JsonNode;

/** One job as the engine writes it. Everything else about a job is the server's. */
record CreateJob(
        @NotNull UUID functionBlockId,
        @NotNull JobType type,
        JsonNode payload,
        @Min(-1_000_000) @Max(1_000_000) Integer priority,
        @Min(1) @Max(100) Integer maxAttempts,
        @Size(max = 64) Map<@NotBlank @Size(max = 100) String, @NotNull @Size(max = 500) String> selector,
        @Size(max = 200) String correlationId,
        @Size(min = 1, max = 200) String idempotencyKey) {
}

/** {@code POST /blackboard/job}: a worker asks for work. */
record PollRequest(
        @NotNull UUID workerId,
        @Size(min = 1, max = 1000) List<@NotNull UUID> functionBlockIds,
        @Min(1) @Max(ClaimStore.MAX_POLL_LIMIT) Integer limit,
        @Min(0) @Max(ServerVersion.MAX_POLL_WAIT_MS) Integer waitMs) {

    int limitOrDefault() {
        return limit == null ? 1 : limit;
    }

    int waitMsOrDefault() {
        return waitMs == null ? 0 : waitMs;
    }
}

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

/** A job, whole. JSON documents are passed through as stored. */
record JobView(UUID id, UUID functionBlockId, JobType type, JobStatus status, @JsonRawValue String payload,
        int priority, int maxAttempts, int attempt, UUID workerId, @JsonRawValue String selector,
        String correlationId, String idempotencyKey, OffsetDateTime createdAt, OffsetDateTime polledAt,
        OffsetDateTime deadline, OffsetDateTime pushedAt, Outcome outcome, FailureReason failureReason,
        @JsonRawValue String result, @JsonRawValue String acquires, @JsonRawValue String dbUpdates,
        @JsonRawValue String error) {
}

/** A page of jobs and the cursor of the next one (null on the last page). */
record JobPage(List<JobView> jobs, String next) {
}

/** A page of the result feed; follow {@code next} to read on. */
record ResultPage(List<JobView> results, String next) {
}

/** One line of a job's audit trail. */
record JobEvent(long id, String kind, int attempt, UUID workerId, String actor, String detail, OffsetDateTime at) {
}

/** One item of a batch push answered: its own HTTP status, and the job or the problem. */
record PushOutcome(UUID jobId, int status, JobView job, ProblemDetail problem) {
}
