package io.blackboard.platform;

final class ExceptionUtils {

    private ExceptionUtils() {
    }

    /** The first cause of that type in the chain, or null. */
    static <T extends Throwable> T find(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }
}
