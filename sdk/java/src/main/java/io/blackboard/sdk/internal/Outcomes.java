package io.blackboard.sdk.internal;

import io.blackboard.sdk.JobContext;
import io.blackboard.sdk.JobFailedException;
import io.blackboard.sdk.Outcome;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What gets pushed: the push body of an outcome, and the FAILURE outcomes the SDK makes itself. */
public final class Outcomes {

    /** A pushed stack trace is cut here: enough to find the line, small enough for every job's row. */
    public static final int MAX_STACK_CHARS = 4000;
    static final int MAX_MESSAGE_CHARS = 2000;

    private Outcomes() {
    }

    /**
     * A thrown exception as a FAILURE: {@code {"type": class, "message": ..., "stack": truncated}}, and for a
     * {@link JobFailedException} its {@code code} (when it has one) and {@code "retryable": false} (when it is not).
     */
    public static Outcome fromException(Throwable t) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("type", t.getClass().getName());
        error.put("message", truncate(t.getMessage() == null ? t.toString() : t.getMessage(), MAX_MESSAGE_CHARS));
        StringWriter stack = new StringWriter();
        t.printStackTrace(new PrintWriter(stack));
        error.put("stack", truncate(stack.toString(), MAX_STACK_CHARS));
        Outcome outcome = Outcome.failure(error);
        if (t instanceof JobFailedException failed) {
            outcome = failed.code() == null ? outcome : outcome.withErrorCode(failed.code());
            outcome = outcome.withRetryable(failed.retryable());
        }
        return outcome;
    }

    /** The FAILURE pushed instead of a SUCCESS whose result the block's schema refused (422). */
    public static Outcome schemaViolation(Map<String, Object> problem) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("type", "RESULT_SCHEMA_VIOLATION");
        Object detail = problem.get("detail");
        error.put("message", "the result does not match the function block's result schema"
                + (detail == null ? "" : ": " + detail));
        Object violations = problem.get("violations");
        error.put("violations", violations instanceof List<?> list ? list : List.of());
        return Outcome.failure(error);
    }

    /** The FAILURE pushed instead of a result the server would not take at all (400, 413). */
    public static Outcome resultRejected(int status, Map<String, Object> problem, String describe) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("type", "RESULT_REJECTED");
        error.put("message", "the server refused the handler's result: " + describe);
        error.put("status", status);
        if (problem.get("type") != null) {
            error.put("problem", problem.get("type"));
        }
        return Outcome.failure(error);
    }

    /** A job of a function block this worker did not register, or of a type it does not know (should not happen). */
    public static Outcome noHandler(String functionBlockId) {
        return Outcome.failure("NO_HANDLER", "this worker has no handler for function block " + functionBlockId);
    }

    static Outcome noHandler(String functionBlockId, Object type) {
        return Outcome.failure("NO_HANDLER", "this worker has no handler for function block " + functionBlockId
                + " and job type " + type);
    }

    /** {@code POST /blackboard/job/result}'s body. */
    public static Map<String, Object> pushBody(JobContext ctx, Outcome outcome) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("jobId", ctx.jobId());
        body.put("workerId", ctx.workerId());
        body.put("attempt", ctx.attempt());
        body.put("status", outcome.status().name());
        if (outcome.result() != null) {
            body.put("result", outcome.result());
        }
        if (outcome.acquires() != null) {
            body.put("acquires", outcome.acquires());
        }
        if (outcome.dbUpdates() != null) {
            body.put("dbUpdates", outcome.dbUpdates());
        }
        if (outcome.error() != null) {
            body.put("error", outcome.error());
        }
        return body;
    }

    /**
     * The push body as JSON text. An outcome that cannot be written as JSON (a result of a type the codec does
     * not know) is pushed as a FAILURE saying so.
     */
    public static String pushJson(JobContext ctx, Outcome outcome) {
        try {
            return Json.write(pushBody(ctx, outcome));
        } catch (Json.JsonException e) {
            return Json.write(pushBody(ctx, fromException(
                    new IllegalArgumentException("the handler's outcome is not JSON: " + e.getMessage(), e))));
        }
    }

    static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + "... (" + (s.length() - max) + " more)";
    }
}
