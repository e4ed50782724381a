package io.blackboard.platform;

import java.time.Duration;

/**
 * A periodic maintenance pass. {@link SweeperScheduler} runs each one every
 * {@link #interval()}; tests call {@link #runOnce()} directly. Implementations must be
 * safe when every replica runs them at once: guarded UPDATEs, bounded batches.
 */
public interface Sweeper {

    String name();

    Duration interval();

    /** Runs one pass and returns a record of what it changed. */
    Object runOnce();
}
