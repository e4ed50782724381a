package io.blackboard.sdk;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How the server runs a job again after its worker pushed a FAILURE: on a job ({@link NewJob#retryPolicy}) or, as
 * the default of its jobs, on a function block ({@link FunctionBlockSpec#retryPolicy}). Only what is set is sent;
 * the server fills in the rest (3 attempts, 1 s doubling up to 5 min, no jitter, {@code FAIL}). Immutable; each
 * method returns a copy.
 *
 * <pre>{@code
 * RetryPolicy.defaults().maxAttempts(5).initialInterval(Duration.ofSeconds(5))
 *         .nonRetryableErrors("AUTH_*").onExhausted(RetryPolicy.OnExhausted.PARK)
 * }</pre>
 *
 * A failure whose error {@code code} matches a {@link #nonRetryableErrors} entry (exactly, or by a prefix ending
 * in {@code *}), or that says {@code "retryable": false} ({@link JobFailedException}, {@link
 * Outcome#withRetryable}), is final at once.
 */
public final class RetryPolicy {

    /** What a final reported failure does: end the job as a FAILURE, or park it as a dead letter. */
    public enum OnExhausted { FAIL, PARK }

    private final Map<String, Object> json;

    private RetryPolicy(Map<String, Object> json) {
        this.json = json;
    }

    /** A policy that sets nothing: every field is the server's default. */
    public static RetryPolicy defaults() {
        return new RetryPolicy(new LinkedHashMap<>());
    }

    /** Attempts in all, the first included (1-100). Default: the job's {@code maxAttempts}, else 3. */
    public RetryPolicy maxAttempts(int maxAttempts) {
        return with("maxAttempts", maxAttempts);
    }

    /** The wait before the first retry (0 to a week). Default 1 s. */
    public RetryPolicy initialInterval(Duration interval) {
        return with("initialIntervalMs", millis(interval, "initialInterval"));
    }

    /** How each wait grows from the last (1.0-10.0). Default 2.0. */
    public RetryPolicy multiplier(double multiplier) {
        return with("multiplier", multiplier);
    }

    /** The longest wait (0 to a week, not below the initial interval). Default 5 min. */
    public RetryPolicy maxInterval(Duration interval) {
        return with("maxIntervalMs", millis(interval, "maxInterval"));
    }

    /** The share of each wait taken off at random (0.0-1.0). Default 0. */
    public RetryPolicy jitter(double jitter) {
        return with("jitter", jitter);
    }

    /** Error codes that are final at once: exact codes, or prefixes ending in {@code *}. */
    public RetryPolicy nonRetryableErrors(String... codes) {
        return nonRetryableErrors(List.of(codes));
    }

    public RetryPolicy nonRetryableErrors(List<String> codes) {
        return with("nonRetryableErrors", List.copyOf(codes));
    }

    /** Default {@code FAIL}. */
    public RetryPolicy onExhausted(OnExhausted onExhausted) {
        return with("onExhausted", Objects.requireNonNull(onExhausted, "onExhausted").name());
    }

    /** The policy as the API takes it: only the fields that were set. */
    public Map<String, Object> toJson() {
        return Collections.unmodifiableMap(json);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RetryPolicy p && p.json.equals(json);
    }

    @Override
    public int hashCode() {
        return json.hashCode();
    }

    @Override
    public String toString() {
        return "RetryPolicy" + json;
    }

    private RetryPolicy with(String name, Object value) {
        Map<String, Object> copy = new LinkedHashMap<>(json);
        copy.put(name, value);
        return new RetryPolicy(copy);
    }

    static long millis(Duration d, String what) {
        if (Objects.requireNonNull(d, what).isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative: " + d);
        }
        return d.toMillis();
    }
}
