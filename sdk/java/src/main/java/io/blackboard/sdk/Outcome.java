package io.blackboard.sdk;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a handler returns: the push it asks for. JSON values are plain Java values: {@code Map}, {@code List},
 * {@code String}, {@code Number}, {@code Boolean} or {@code null}. Immutable; the {@code with...} methods
 * return a copy.
 *
 * <pre>{@code
 * return Outcome.success(Map.of("lines", 120));                     // EXECUTE
 * return Outcome.acquired(List.of(Map.of("resource", "r1")));        // ACQUIRE
 * return Outcome.failure("DEVICE_UNREACHABLE", "r1 did not answer");  // a business failure, no exception
 * return Outcome.failure("AuthFailed", "bad credentials").withErrorCode("AUTH_FAILED").withRetryable(false);
 * }</pre>
 *
 * A handler that throws is pushed as a FAILURE too, its error built from the exception ({@link
 * JobFailedException} carries a code and whether to retry).
 */
public final class Outcome {

    /** The push's {@code status}. */
    public enum Status { SUCCESS, FAILURE }

    private final Status status;
    private final Object result;
    private final Object acquires;
    private final Object dbUpdates;
    private final Map<String, Object> error;

    private Outcome(Status status, Object result, Object acquires, Object dbUpdates, Map<String, Object> error) {
        this.status = status;
        this.result = result;
        this.acquires = acquires;
        this.dbUpdates = dbUpdates;
        this.error = error;
    }

    /** SUCCESS with no result ({@code null}). */
    public static Outcome success() {
        return new Outcome(Status.SUCCESS, null, null, null, null);
    }

    /** SUCCESS with a result, checked by the server against the block's result schema. */
    public static Outcome success(Object result) {
        return new Outcome(Status.SUCCESS, result, null, null, null);
    }

    /** SUCCESS of an ACQUIRE job, naming what it acquired (passed to the engine as the job's {@code acquires}). */
    public static Outcome acquired(List<?> acquires) {
        return new Outcome(Status.SUCCESS, null, List.copyOf(acquires), null, null);
    }

    /** FAILURE with the error {@code {"type": type, "message": message}}. */
    public static Outcome failure(String type, String message) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("type", Objects.requireNonNull(type, "type"));
        error.put("message", message);
        return new Outcome(Status.FAILURE, null, null, null, error);
    }

    /** FAILURE with an error document of your own (it should have at least a {@code type} and a {@code message}). */
    public static Outcome failure(Map<String, ?> error) {
        return new Outcome(Status.FAILURE, null, null, null, new LinkedHashMap<>(error));
    }

    public Outcome withResult(Object result) {
        return new Outcome(status, result, acquires, dbUpdates, error);
    }

    public Outcome withAcquires(List<?> acquires) {
        return new Outcome(status, result, acquires == null ? null : List.copyOf(acquires), dbUpdates, error);
    }

    /** The job's {@code dbUpdates}, passed through to the engine. */
    public Outcome withDbUpdates(Object dbUpdates) {
        return new Outcome(status, result, acquires, dbUpdates, error);
    }

    /**
     * A FAILURE whose error carries this {@code code}, the name a job's {@link RetryPolicy} matches its
     * non-retryable errors against.
     */
    public Outcome withErrorCode(String code) {
        return withErrorMember("code", Objects.requireNonNull(code, "code"));
    }

    /**
     * A FAILURE that says whether running the job again could help: {@code false} makes it final whatever the
     * job's retry policy ({@code "retryable": false} in the error); {@code true} leaves it to the policy.
     */
    public Outcome withRetryable(boolean retryable) {
        return withErrorMember("retryable", retryable ? null : Boolean.FALSE);
    }

    public Status status() {
        return status;
    }

    public boolean isSuccess() {
        return status == Status.SUCCESS;
    }

    public Object result() {
        return result;
    }

    public Object acquires() {
        return acquires;
    }

    public Object dbUpdates() {
        return dbUpdates;
    }

    /** The error document of a FAILURE, null for a SUCCESS. */
    public Map<String, Object> error() {
        return error == null ? null : Map.copyOf(error);
    }

    private Outcome withErrorMember(String name, Object value) {
        if (status != Status.FAILURE) {
            throw new IllegalStateException("only a FAILURE has an error");
        }
        Map<String, Object> copy = new LinkedHashMap<>(error);
        if (value == null) {
            copy.remove(name);
        } else {
            copy.put(name, value);
        }
        return new Outcome(status, result, acquires, dbUpdates, copy);
    }

    @Override
    public String toString() {
        return "Outcome[" + status + (result != null ? ", result=" + result : "")
                + (acquires != null ? ", acquires=" + acquires : "")
                + (dbUpdates != null ? ", dbUpdates=" + dbUpdates : "")
                + (error != null ? ", error=" + error : "") + "]";
    }
}
