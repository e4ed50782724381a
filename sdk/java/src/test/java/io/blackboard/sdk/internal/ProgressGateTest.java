package io.blackboard.sdk.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressGateTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final ProgressGate gate = new ProgressGate(now::get);
    private final List<String> sent = new ArrayList<>();

    private boolean report(int percent, String message) {
        return gate.report(percent, message, () -> false, (p, m) -> sent.add(p + " " + m));
    }

    private void advanceMillis(long ms) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    @Test
    void a_report_goes_again_two_seconds_after_the_last_recorded_one_and_100_always_goes() {
        assertThat(report(1, "a")).isTrue();
        advanceMillis(1_999);
        assertThat(report(2, "b")).isFalse();
        advanceMillis(1);
        assertThat(report(3, "c")).isTrue();
        assertThat(report(100, "done")).isTrue();

        assertThat(sent).containsExactly("1 a", "3 c", "100 done");
    }

    @Test
    void a_report_the_server_did_not_record_does_not_start_the_two_seconds() {
        List<Boolean> answers = new ArrayList<>(List.of(false, true));
        assertThat(gate.report(1, null, () -> false, (p, m) -> answers.remove(0))).isFalse();
        assertThat(gate.report(2, null, () -> false, (p, m) -> answers.remove(0))).isTrue();
    }

    @Test
    void a_cancelled_job_sends_nothing() {
        assertThat(gate.report(100, null, () -> true, (p, m) -> sent.add("sent"))).isFalse();
        assertThat(sent).isEmpty();
    }

    @Test
    void the_percent_is_checked_and_the_message_cut_to_the_servers_200_characters() {
        assertThatThrownBy(() -> report(-1, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> report(101, null)).isInstanceOf(IllegalArgumentException.class);

        report(50, "x".repeat(300));
        assertThat(sent.get(0)).isEqualTo("50 " + "x".repeat(200));
        assertThat(ProgressGate.clip("x".repeat(199) + "😀")).as("never half a surrogate pair")
                .isEqualTo("x".repeat(199));
        assertThat(ProgressGate.clip(null)).isNull();
    }
}
