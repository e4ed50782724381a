package io.blackboard.sdk.internal;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * Logs a loop's failures by transition instead of one line per try: the first failure and every 20th at
 * WARNING (the others at DEBUG), and the recovery at INFO. A server that is down for an hour costs a few
 * lines, not thousands.
 */
final class Trouble {

    private final Logger log;
    private final String what;
    private int failures;

    Trouble(Logger log, String what) {
        this.log = log;
        this.what = what;
    }

    void failed(String detail, java.time.Duration retryIn) {
        failures++;
        Level level = failures == 1 || failures % 20 == 0 ? Level.WARNING : Level.DEBUG;
        if (log.isLoggable(level)) {
            log.log(level, "{0} failed ({1}{2}); trying again in {3} ms", what, detail,
                    failures > 1 ? ", " + failures + " times in a row" : "", String.valueOf(retryIn.toMillis()));
        }
    }

    void recovered() {
        if (failures > 0) {
            log.log(Level.INFO, "{0} works again after {1} failures", what, String.valueOf(failures));
            failures = 0;
        }
    }
}
