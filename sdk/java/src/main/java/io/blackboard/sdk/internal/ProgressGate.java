package io.blackboard.sdk.internal;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The client side of one job's progress reports: checks the percentage, cuts the message to the server's limit,
 * and holds back a report within {@link #MIN_GAP} of the last recorded one (the server would not record it; a
 * handler reporting in a tight loop must not flood it), except 100. Reports of one job go one at a time.
 */
public final class ProgressGate {

    /** The server records at most one report per job in this time. */
    public static final Duration MIN_GAP = Duration.ofSeconds(2);
    /** The longest message the server takes, in UTF-16 units (a Java string's length). */
    public static final int MAX_MESSAGE = 200;

    /** Sends one report; answers whether the server recorded it. */
    @FunctionalInterface
    public interface Sender {
        boolean send(int percent, String message);
    }

    private final LongSupplier nanoClock;
    private boolean recorded;
    private long recordedAt;

    public ProgressGate() {
        this(System::nanoTime);
    }

    /** With a clock of nanoseconds, for tests. */
    public ProgressGate(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** Checks the report, then sends it unless the job is cancelled or it comes too soon; answers whether recorded. */
    public synchronized boolean report(int percent, String message, BooleanSupplier cancelled, Sender sender) {
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("progress percent must be within 0-100: " + percent);
        }
        if (cancelled.getAsBoolean()) {
            return false;
        }
        if (percent < 100 && recorded && nanoClock.getAsLong() - recordedAt < MIN_GAP.toNanos()) {
            return false;
        }
        boolean ok = sender.send(percent, clip(message));
        if (ok) {
            recorded = true;
            recordedAt = nanoClock.getAsLong(); // after the answer: the server's gap surely starts before
        }
        return ok;
    }

    static String clip(String message) {
        if (message == null || message.length() <= MAX_MESSAGE) {
            return message;
        }
        int end = Character.isHighSurrogate(message.charAt(MAX_MESSAGE - 1)) ? MAX_MESSAGE - 1 : MAX_MESSAGE;
        return message.substring(0, end);
    }
}
