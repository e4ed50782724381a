package io.blackboard.functionblock;

import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import java.util.List;
import org.springframework.lang.Nullable;

/**
 * How a job whose worker reports FAILURE runs again: up to {@code maxAttempts} attempts in all,
 * the n-th retry after {@code initialIntervalMs * multiplier^(n-1)}, at most {@code maxIntervalMs},
 * less up to a {@code jitter} share of it at random. An error whose {@code code} is listed in
 * {@code nonRetryableErrors} (exactly, or by a prefix ending in {@code *}), or that says
 * {@code "retryable": false}, is final at once; {@code onExhausted} PARK then parks the job as a
 * dead letter instead of failing it. Given on a job, or on its function block as the
 * default of its jobs; absent fields take the defaults below.
 */
public record RetryPolicy(
        @Schema(defaultValue = "3") @Min(1) @Max(100) @Nullable Integer maxAttempts,
        @Schema(defaultValue = "1000") @Min(0) @Max(MAX_INTERVAL_MS) @Nullable Long initialIntervalMs,
        @Schema(defaultValue = "2.0") @DecimalMin("1.0") @DecimalMax("10.0") @Nullable Double multiplier,
        @Schema(defaultValue = "300000") @Min(0) @Max(MAX_INTERVAL_MS) @Nullable Long maxIntervalMs,
        @Schema(defaultValue = "0.0") @DecimalMin("0.0") @DecimalMax("1.0") @Nullable Double jitter,
        @Size(max = 100) @Nullable List<@NotBlank @Size(max = 200) String> nonRetryableErrors,
        @Schema(defaultValue = "FAIL") @Nullable Exhausted onExhausted) {

    /** What a final reported failure does: the job fails (FAIL), or parks as a dead letter (PARK). */
    public enum Exhausted {
        FAIL, PARK
    }

    /** The longest backoff a policy may ask for: a week. */
    public static final long MAX_INTERVAL_MS = 7L * 24 * 3600 * 1000;
    public static final int DEFAULT_MAX_ATTEMPTS = 3;
    public static final long DEFAULT_INITIAL_INTERVAL_MS = 1_000;
    public static final double DEFAULT_MULTIPLIER = 2.0;
    public static final long DEFAULT_MAX_INTERVAL_MS = 300_000;

    @AssertTrue(message = "maxIntervalMs must not be less than initialIntervalMs")
    boolean isIntervalOrdered() {
        return initialIntervalMs == null || maxIntervalMs == null || maxIntervalMs >= initialIntervalMs;
    }

    /**
     * Every field set: the defaults for absent ones, and {@code maxAttempts} from
     * {@code jobMaxAttempts} (the job's own) when the policy has none. The interval defaults
     * never cross: a policy that sets only one interval has the other follow it.
     */
    public RetryPolicy complete(@Nullable Integer jobMaxAttempts) {
        long initial = initialIntervalMs != null ? initialIntervalMs
                : Math.min(DEFAULT_INITIAL_INTERVAL_MS, maxIntervalMs != null ? maxIntervalMs : Long.MAX_VALUE);
        long max = maxIntervalMs != null ? maxIntervalMs : Math.max(DEFAULT_MAX_INTERVAL_MS, initial);
        int attempts = maxAttempts != null ? maxAttempts
                : jobMaxAttempts != null ? jobMaxAttempts : DEFAULT_MAX_ATTEMPTS;
        return new RetryPolicy(attempts, initial, multiplier != null ? multiplier : DEFAULT_MULTIPLIER, max,
                jitter != null ? jitter : 0.0, nonRetryableErrors != null ? List.copyOf(nonRetryableErrors) : List.of(),
                onExhausted != null ? onExhausted : Exhausted.FAIL);
    }
}
