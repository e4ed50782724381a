package io.blackboard.platform.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A request the server did no work for is counted once, however often it is refused. */
class CallerTest {

    @Test
    void aRequestRefusedAgainIsCountedOnce() {
        MeterRegistry registry = new SimpleMeterRegistry();
        Caller.Counters counters = new Caller.Counters(registry.counter("deadline"), registry.counter("disconnected"));
        long arrival = System.nanoTime() - TimeUnit.SECONDS.toNanos(2);
        Caller late = new Caller(arrival, TimeUnit.SECONDS.toNanos(1), null, counters);
        Caller other = new Caller(arrival, TimeUnit.SECONDS.toNanos(1), null, counters);

        // refused in a shared batch, then again when the batch's requests run again alone
        assertThatThrownBy(() -> late.requireBefore(late.deadline(Caller.NO_DEADLINE)))
                .isInstanceOf(Caller.AnswerUnwanted.class);
        assertThatThrownBy(() -> late.requireBefore(late.deadline(Caller.NO_DEADLINE)))
                .isInstanceOf(Caller.AnswerUnwanted.class);
        assertThat(counters.deadline().count()).isEqualTo(1);

        assertThatThrownBy(() -> other.requireBefore(other.deadline(Caller.NO_DEADLINE)))
                .isInstanceOf(Caller.AnswerUnwanted.class);
        assertThat(counters.deadline().count()).as("another request counts on its own").isEqualTo(2);
        Counter disconnected = counters.disconnected();
        assertThat(disconnected.count()).isZero();
    }
}
