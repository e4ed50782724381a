package io.blackboard.sdk.testing;

import io.blackboard.sdk.Outcome;
import java.util.Map;

/**
 * How a handler run by {@link JobHarness} ended, and what a worker would have pushed for it.
 *
 * @param outcome what the handler returned, or the FAILURE a worker makes of what it threw
 * @param thrown what the handler threw, or null
 * @param cancelled whether the job's cancel flag was set when the handler ended (then nothing is pushed)
 * @param pushBody the body a worker would push ({@code jobId}, {@code attempt}, {@code status}, {@code result},
 *     {@code error}, ...), null when cancelled
 */
public record HarnessResult(Outcome outcome, Throwable thrown, boolean cancelled, Map<String, Object> pushBody) {

    /** Whether a worker would push anything. */
    public boolean pushed() {
        return pushBody != null;
    }

    public boolean isSuccess() {
        return !cancelled && outcome.isSuccess();
    }

    public Object result() {
        return outcome.result();
    }

    public Map<String, Object> error() {
        return outcome.error();
    }
}
