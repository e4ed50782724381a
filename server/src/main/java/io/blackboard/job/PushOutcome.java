package io.blackboard.job;

import io.swagger.v3.oas.annotations.media.Schema;
import java.util.UUID;
import org.springframework.http.ProblemDetail;

/** One item of a batch push answered: its own HTTP status, and the job or the problem. */
record PushOutcome(UUID jobId,
        @Schema(description = "The status a single push of the item would answer", example = "200") int status,
        @Schema(description = "The job, for a 200") JobView job,
        @Schema(description = "Why not, for any other status") ProblemDetail problem) {
}
