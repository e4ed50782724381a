package io.blackboard.job;

import io.blackboard.platform.errors.ApiException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.http.HttpStatus;

/** The typed failures of the blackboard, each rendered as an RFC 9457 problem. */
final class JobProblems {

    private JobProblems() {
    }

    static final class JobNotFound extends ApiException {
        JobNotFound(UUID id) {
            super(HttpStatus.NOT_FOUND, "job-not-found", "Job " + id + " does not exist");
        }
    }

    /** A push (or other worker action) for a job that is no longer that worker's live claim. */
    static final class JobNotHeld extends ApiException {
        JobNotHeld(UUID jobId, UUID workerId, Integer attempt, JobState current) {
            super(HttpStatus.CONFLICT, "job-not-held",
                    "Job %s is not held by worker %s%s: it is %s".formatted(jobId, workerId,
                            attempt == null ? "" : " at attempt " + attempt, current.describe()),
                    current.asProperties());
        }
    }

    /** The job was pushed already, with a different result. */
    static final class AlreadyPushed extends ApiException {
        AlreadyPushed(UUID jobId, JobState current) {
            super(HttpStatus.CONFLICT, "job-already-pushed",
                    "Job %s was already pushed with a different result (%s)".formatted(jobId, current.describe()),
                    current.asProperties());
        }
    }

    static final class JobFinished extends ApiException {
        JobFinished(UUID jobId, JobState current) {
            super(HttpStatus.CONFLICT, "job-finished",
                    "Job %s can no longer be cancelled: it is %s".formatted(jobId, current.describe()),
                    current.asProperties());
        }
    }

    /** A dead-letter action on a job that is not parked (never was, or was re-run, discarded or cancelled). */
    static final class NotParked extends ApiException {
        NotParked(UUID jobId, JobState current) {
            super(HttpStatus.CONFLICT, "job-not-parked",
                    "Job %s is not a dead letter: it is %s".formatted(jobId, current.describe()),
                    current.asProperties());
        }
    }

    static final class UnknownFunctionBlock extends ApiException {
        UnknownFunctionBlock(String where, UUID functionBlockId) {
            super(HttpStatus.UNPROCESSABLE_CONTENT, "unknown-function-block",
                    "%sfunctionBlockId %s is not a registered function block".formatted(where, functionBlockId));
        }
    }

    /** A create naming a function block by name and version that no registered block matches. */
    static final class NoFunctionBlockNamed extends ApiException {
        NoFunctionBlockNamed(String where, String name, String versions) {
            super(HttpStatus.UNPROCESSABLE_CONTENT, "unknown-function-block",
                    "%sno registered function block is named %s with a version in %s".formatted(where, name, versions));
        }
    }

    /** A document that breaks the function block's declared schema. */
    static final class SchemaViolation extends ApiException {
        SchemaViolation(String field, String schema, List<String> violations) {
            super(HttpStatus.UNPROCESSABLE_CONTENT, "schema-violation",
                    "%s does not match the function block's %s: %s".formatted(field, schema,
                            String.join("; ", violations)),
                    Map.of("field", field, "violations", violations));
        }
    }

    static final class NotServedByWorker extends ApiException {
        NotServedByWorker(UUID workerId, UUID functionBlockId) {
            super(HttpStatus.UNPROCESSABLE_CONTENT, "function-block-not-registered",
                    "Worker %s has not registered function block %s; register it first or omit functionBlockIds"
                            .formatted(workerId, functionBlockId));
        }
    }

    /** The bound on parked long polls is reached: come back shortly. */
    static final class TooManyParkedPolls extends ApiException {
        TooManyParkedPolls(int bound) {
            super(HttpStatus.TOO_MANY_REQUESTS, "too-many-parked-polls",
                    "This server already holds " + bound + " parked long polls; retry shortly or poll without waitMs",
                    Map.of(), Map.of("Retry-After", "1"));
        }
    }

    static final class IdempotencyKeyReused extends ApiException {
        IdempotencyKeyReused(String where, String key, UUID existing) {
            super(HttpStatus.CONFLICT, "idempotency-key-reused",
                    "%sidempotencyKey '%s' already names job %s, created with different content"
                            .formatted(where, key, existing),
                    Map.of("jobId", existing));
        }
    }

    /** Where a job stands, for conflict answers. */
    record JobState(JobStatus status, int attempt, Outcome outcome, FailureReason failureReason) {

        String describe() {
            StringBuilder text = new StringBuilder(status.name());
            if (outcome != null) {
                text.append('/').append(outcome);
            }
            if (failureReason != null) {
                text.append(" (").append(failureReason).append(')');
            }
            return text.append(", attempt ").append(attempt).toString();
        }

        Map<String, Object> asProperties() {
            Map<String, Object> properties = new LinkedHashMap<>();
            properties.put("jobStatus", status);
            properties.put("attempt", attempt);
            if (outcome != null) {
                properties.put("outcome", outcome);
            }
            if (failureReason != null) {
                properties.put("failureReason", failureReason);
            }
            return properties;
        }
    }
}
