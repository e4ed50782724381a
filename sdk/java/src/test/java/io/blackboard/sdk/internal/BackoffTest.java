package io.blackboard.sdk.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private static final Duration INITIAL = Duration.ofMillis(500);
    private static final Duration MAX = Duration.ofSeconds(30);

    @Test
    void the_ceiling_doubles_per_failure_up_to_the_max() {
        Backoff backoff = new Backoff(INITIAL, MAX, 2, () -> 1.0);
        long[] expected = {500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000};
        for (long ms : expected) {
            assertThat(backoff.next()).isEqualTo(Duration.ofMillis(ms));
        }
    }

    @Test
    void full_jitter_draws_from_zero_to_the_ceiling() {
        assertThat(new Backoff(INITIAL, MAX, 2, () -> 0.0).next()).isEqualTo(Duration.ZERO);
        assertThat(new Backoff(INITIAL, MAX, 2, () -> 0.5).next()).isEqualTo(Duration.ofMillis(250));
        Backoff real = new Backoff(INITIAL, MAX, 2);
        for (int i = 0; i < 1000; i++) {
            Duration ceiling = real.ceiling();
            assertThat(real.next()).isBetween(Duration.ZERO, ceiling).isLessThanOrEqualTo(MAX);
        }
    }

    @Test
    void a_success_resets_it() {
        Backoff backoff = new Backoff(INITIAL, MAX, 2, () -> 1.0);
        backoff.next();
        backoff.next();
        backoff.next();
        backoff.reset();
        assertThat(backoff.failures()).isZero();
        assertThat(backoff.next()).isEqualTo(INITIAL);
    }

    @Test
    void retry_after_wins_but_still_counts_as_a_failure() {
        Backoff backoff = new Backoff(INITIAL, MAX, 2, () -> 1.0);
        assertThat(backoff.next(Optional.of(Duration.ofSeconds(7)))).isEqualTo(Duration.ofSeconds(7));
        assertThat(backoff.next(Optional.empty())).isEqualTo(Duration.ofMillis(1000));
    }

    @Test
    void many_failures_do_not_overflow() {
        Backoff backoff = new Backoff(INITIAL, MAX, 2, () -> 1.0);
        for (int i = 0; i < 10_000; i++) {
            assertThat(backoff.next()).isLessThanOrEqualTo(MAX);
        }
    }

    @Test
    void refuses_nonsense() {
        assertThatThrownBy(() -> new Backoff(Duration.ZERO, MAX, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(MAX, INITIAL, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(INITIAL, MAX, 0.5)).isInstanceOf(IllegalArgumentException.class);
    }
}
