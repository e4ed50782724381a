package io.blackboard.platform;

import java.security.SecureRandom;
import java.util.UUID;

/**
 * Time-ordered UUIDs (version 7, RFC 9562). New rows land at the right edge of the
 * primary-key index instead of on random pages. The clock here only orders ids; no
 * decision is ever taken on it.
 */
public final class Ids {

    private static final SecureRandom RANDOM = new SecureRandom();

    private Ids() {
    }

    public static UUID newId() {
        long millis = System.currentTimeMillis();
        long msb = (millis << 16) | 0x7000L | (RANDOM.nextInt() & 0x0FFF);
        long lsb = (RANDOM.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb);
    }
}
