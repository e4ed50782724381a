package io.blackboard.platform.errors;

import java.util.function.Predicate;

/** Looks through an exception's causes, whatever wrapped it. */
public final class ExceptionUtils {

    private ExceptionUtils() {
    }

    /** The first cause of that type in the chain, or null. */
    public static <T extends Throwable> T find(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    /** Whether any throwable of the chain, {@code e} included, matches. */
    static boolean any(Throwable e, Predicate<Throwable> matches) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (matches.test(t)) {
                return true;
            }
        }
        return false;
    }
}
