package io.blackboard.platform.sql;

import java.util.function.Supplier;

/**
 * A check that runs when this thread next gets a database connection from the pool, once: a
 * request whose client said when it stops waiting arms it before its work begins, so a request
 * that waited for a connection (the pool exhausted under load) past that moment is refused then,
 * before its first statement, rather than doing its work for nobody. Only the first connection
 * is checked: a refusal after a statement could come after a commit, when "nothing was done" is
 * no longer true. The pool's {@link DeadlineDataSource} runs it.
 */
public final class ConnectionDeadline {

    private static final ThreadLocal<Runnable> CHECK = new ThreadLocal<>();

    private ConnectionDeadline() {
    }

    /** Runs {@code check} (which throws to refuse the work) when this thread next gets a connection. */
    public static void beforeFirstConnection(Runnable check) {
        CHECK.set(check);
    }

    /** Forgets the check, run or not: the request is over. */
    public static void clear() {
        CHECK.remove();
    }

    /**
     * Runs {@code work} with no check armed, and none after it: work done for other callers as well
     * (a coalesced batch) is not refused for the one whose thread runs it.
     */
    static <T> T unchecked(Supplier<T> work) {
        CHECK.remove();
        return work.get();
    }

    /** This thread has just got a connection: runs the armed check, if any, once. */
    static void connected() {
        Runnable check = CHECK.get();
        if (check != null) {
            CHECK.remove();
            check.run();
        }
    }
}
