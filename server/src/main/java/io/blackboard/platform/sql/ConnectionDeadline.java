package io.blackboard.platform.sql;

import java.util.function.BooleanSupplier;
import org.springframework.lang.Nullable;

/**
 * A check that runs when this thread next gets a database connection from the pool, once: a
 * request whose client said when it stops waiting arms it before its work begins, so a request
 * that waited for a connection (the pool exhausted under load) past that moment is refused then,
 * before its first statement, rather than doing its work for nobody. Only the first connection
 * is checked: a refusal after a statement could come after a commit, when "nothing was done" is
 * no longer true. The pool's {@link DeadlineDataSource} runs it; a {@link Coalescer} takes it off
 * the caller's thread and checks each of its calls when its batch gets its connection.
 */
public final class ConnectionDeadline {

    /**
     * A caller's deadline: whether it has passed, and the refusal (which throws, and counts it).
     */
    public record Armed(BooleanSupplier passed, Runnable refuse) {
    }

    private static final ThreadLocal<Armed> ARMED = new ThreadLocal<>();

    private ConnectionDeadline() {
    }

    /** Refuses this thread's work, by {@code deadline}'s refusal, if it has passed when the thread next gets a connection. */
    public static void beforeFirstConnection(Armed deadline) {
        ARMED.set(deadline);
    }

    /** Forgets the check, run or not: the request is over. */
    public static void clear() {
        ARMED.remove();
    }

    /** Takes this thread's check off it, to be checked elsewhere (a batch that runs for several callers). */
    @Nullable
    static Armed take() {
        Armed armed = ARMED.get();
        ARMED.remove();
        return armed;
    }

    /** This thread has just got a connection: runs the armed check, if any, once. */
    static void connected() {
        Armed armed = take();
        if (armed != null && armed.passed().getAsBoolean()) {
            armed.refuse().run();
        }
    }
}
