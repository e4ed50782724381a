package io.blackboard.job;

import java.util.UUID;
import org.springframework.http.ProblemDetail;

/** One item of a batch push answered: its own HTTP status, and the job or the problem. */
record PushOutcome(UUID jobId, int status, JobView job, ProblemDetail problem) {
}
