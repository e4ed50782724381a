package io.blackboard.sdk.internal;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Exponential backoff with full jitter, for errors only: the n-th consecutive failure waits a uniformly random
 * time in {@code [0, min(max, initial * multiplier^(n-1))]}; a success resets it. A server's {@code Retry-After}
 * replaces the computed delay (still counting as a failure, so the next computed delay keeps growing). Not
 * thread-safe: each loop, and each push, owns one.
 */
public final class Backoff {

    private final Duration initial;
    private final Duration max;
    private final double multiplier;
    private final DoubleSupplier random;
    private int failures;

    public Backoff(Duration initial, Duration max, double multiplier) {
        this(initial, max, multiplier, () -> ThreadLocalRandom.current().nextDouble());
    }

    Backoff(Duration initial, Duration max, double multiplier, DoubleSupplier random) {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0 || multiplier < 1) {
            throw new IllegalArgumentException("backoff needs 0 < initial <= max and multiplier >= 1");
        }
        this.initial = initial;
        this.max = max;
        this.multiplier = multiplier;
        this.random = random;
    }

    /** The ceiling of the next delay: initial * multiplier^failures, capped. */
    public Duration ceiling() {
        double ms = initial.toMillis() * Math.pow(multiplier, failures);
        return ms >= max.toMillis() ? max : Duration.ofMillis((long) ms);
    }

    /** Records a failure and answers how long to wait before the next try. */
    public Duration next() {
        Duration ceiling = ceiling();
        failures = Math.min(failures + 1, 64);
        return Duration.ofMillis((long) (random.getAsDouble() * ceiling.toMillis()));
    }

    /** Like {@link #next()}, but the server's hint wins when it gave one. */
    public Duration next(Optional<Duration> retryAfter) {
        Duration computed = next();
        return retryAfter.orElse(computed);
    }

    public void reset() {
        failures = 0;
    }

    public int failures() {
        return failures;
    }
}
