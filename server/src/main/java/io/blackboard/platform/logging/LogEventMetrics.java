package io.blackboard.platform.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggerContextListener;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * {@code logback.events}, by {@code level}: the events logged, as Micrometer's {@code LogbackMetrics}
 * counts them (its auto-configuration is excluded in application.yml), counted by an appender on
 * the root logger. Micrometer's counts in a turbo filter, and a turbo filter is asked at every
 * level check of every logger ({@code isTraceEnabled()} and the like, several per request in
 * the security filters and JDBC), logged or not: about 2% of the server's CPU per request
 * (BENCHMARKS.md). An appender runs only for what is logged. A reset of the logging (a
 * configuration reloaded) keeps it; a stop of Logback's context (the logging shut down, as the
 * JVM's last application closing does) ends it, as it ended Micrometer's filter.
 */
@Component
class LogEventMetrics implements MeterBinder, DisposableBean {

    /** How to undo each binding: its appender detached, its listener removed. */
    private final List<Runnable> unbind = new CopyOnWriteArrayList<>();

    @Override
    public void bindTo(MeterRegistry registry) {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logback) {
            bind(logback, registry);
        } // else another logging system: nothing of Logback's to count
    }

    /**
     * Counts what {@code logback} logs from now on. Each binding has an appender of its own (each
     * application context in a JVM, as in the tests, counts into its own registry).
     */
    void bind(LoggerContext logback, MeterRegistry registry) {
        Counting appender = new Counting(registry);
        appender.setContext(logback);
        appender.setName("blackboard-log-event-metrics@" + Integer.toHexString(System.identityHashCode(appender)));
        attach(logback, appender);
        // a reset (the logging system configured again) detaches every appender: this one goes back on
        LoggerContextListener listener = new LoggerContextListener() {
            @Override
            public boolean isResetResistant() {
                return true;
            }

            @Override
            public void onReset(LoggerContext reset) {
                attach(reset, appender);
            }

            @Override
            public void onStart(LoggerContext started) {
            }

            @Override
            public void onStop(LoggerContext stopped) {
            }

            @Override
            public void onLevelChange(Logger logger, Level level) {
            }
        };
        logback.addListener(listener);
        unbind.add(() -> {
            logback.removeListener(listener);
            logback.getLogger(Logger.ROOT_LOGGER_NAME).detachAppender(appender);
            appender.stop();
        });
    }

    private static void attach(LoggerContext logback, Counting appender) {
        appender.start();
        logback.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);
    }

    @Override
    public void destroy() {
        unbind.forEach(Runnable::run);
        unbind.clear();
    }

    /** Counts each event by its level; the counters are those {@code LogbackMetrics} registers. */
    private static final class Counting extends UnsynchronizedAppenderBase<ILoggingEvent> {

        private final Counter error;
        private final Counter warn;
        private final Counter info;
        private final Counter debug;
        private final Counter trace;

        Counting(MeterRegistry registry) {
            this.error = counter(registry, "error");
            this.warn = counter(registry, "warn");
            this.info = counter(registry, "info");
            this.debug = counter(registry, "debug");
            this.trace = counter(registry, "trace");
        }

        private static Counter counter(MeterRegistry registry, String level) {
            return Counter.builder("logback.events").tag("level", level)
                    .description("Number of log events that were enabled by the effective log level")
                    .baseUnit("events").register(registry);
        }

        @Override
        protected void append(ILoggingEvent event) {
            switch (event.getLevel().toInt()) {
                case Level.ERROR_INT -> error.increment();
                case Level.WARN_INT -> warn.increment();
                case Level.INFO_INT -> info.increment();
                case Level.DEBUG_INT -> debug.increment();
                case Level.TRACE_INT -> trace.increment();
                default -> {
                    // ALL and OFF are thresholds, not the level of an event
                }
            }
        }
    }
}
