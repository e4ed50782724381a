package io.blackboard.platform.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * {@code logback.events}, by {@code level}: the events logged, as Micrometer's {@code LogbackMetrics}
 * counts them (its auto-configuration is excluded in application.yml), counted by an appender on
 * the root logger. Micrometer's counts in a turbo filter, and a turbo filter is asked at every
 * level check of every logger ({@code isTraceEnabled()} and the like, several per request in
 * the security filters and JDBC), logged or not: about 2% of the server's CPU per request
 * (BENCHMARKS.md). An appender runs only for what is logged.
 */
@Component
class LogEventMetrics implements MeterBinder, DisposableBean {

    private static final String APPENDER = "blackboard-log-event-metrics";

    private volatile Counting counting;

    @Override
    public void bindTo(MeterRegistry registry) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return; // another logging system: nothing of Logback's to count
        }
        Counting appender = new Counting(registry);
        appender.setContext(context);
        appender.setName(APPENDER);
        appender.start();
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.detachAppender(APPENDER); // one from an earlier binding of this context
        root.addAppender(appender);
        counting = appender;
    }

    @Override
    public void destroy() {
        Counting appender = counting;
        if (appender != null) {
            appender.stop();
            if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
                context.getLogger(Logger.ROOT_LOGGER_NAME).detachAppender(appender);
            }
        }
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
                    .description("Number of " + level + " level events that made it to the logs")
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
