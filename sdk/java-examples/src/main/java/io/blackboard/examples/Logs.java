package io.blackboard.examples;

/** One line per log record for the examples (the SDK logs through System.Logger, java.util.logging by default). */
final class Logs {

    private Logs() {
    }

    /** Call first thing in main, before anything logs; a format given with -D wins. */
    static void oneLinePerRecord() {
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format",
                    "%1$tF %1$tT.%1$tL %4$s %3$s: %5$s%6$s%n");
        }
    }
}
