package io.blackboard.platform.scheduling;

import java.time.Duration;
import java.util.Map;

/**
 * A periodic maintenance pass. {@link SweeperScheduler} runs each one every
 * {@link #interval()}; tests call {@link #runOnce()} directly. Implementations must be
 * safe when every replica runs them at once: guarded UPDATEs, bounded batches.
 */
public interface Sweeper {

    String name();

    Duration interval();

    /** Runs one pass and answers what it changed. */
    Pass runOnce();

    /**
     * What one pass changed, as rows by kind of change: each kind is the {@code change} tag of
     * {@code blackboard.sweeper.rows} and a field of the pass's log line.
     */
    interface Pass {

        Map<String, Long> changes();
    }
}
