package io.blackboard.platform.sql;

import java.security.SecureRandom;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Time-ordered UUIDs (version 7, RFC 9562), monotonic within this process: the 12 bits after
 * the millisecond timestamp count up (RFC 9562 section 6.2, method 1). New rows land at the
 * right edge of the primary-key index, and jobs created together keep their order, which is
 * the FIFO tie-break of the claim. The clock here only orders ids; no decision is taken on it.
 */
public final class Ids {

    private static final SecureRandom RANDOM = new SecureRandom();
    /** The last (millisecond << 12 | counter) handed out. */
    private static final AtomicLong LAST = new AtomicLong();

    private Ids() {
    }

    public static UUID newId() {
        long millis = System.currentTimeMillis();
        long stamp = LAST.updateAndGet(previous -> Math.max(millis << 12, previous + 1));
        long msb = ((stamp >>> 12) << 16) | 0x7000L | (stamp & 0x0FFFL);
        long lsb = (RANDOM.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb);
    }
}
