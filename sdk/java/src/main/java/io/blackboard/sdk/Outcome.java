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
 * }</pre>
 *
 * A handler that throws is pushed as a FAILURE too, its error built from the exception.
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

    @Override
    public String toString() {
        return "Outcome[" + status + (result != null ? ", result=" + result : "")
                + (acquires != null ? ", acquires=" + acquires : "")
                + (dbUpdates != null ? ", dbUpdates=" + dbUpdates : "")
                + (error != null ? ", error=" + error : "") + "]";
    }
}
