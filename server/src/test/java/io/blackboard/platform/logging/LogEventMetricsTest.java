package io.blackboard.platform.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.test.context.TestPropertySource;

/**
 * {@code logback_events_total} counts what is logged, by level, as Micrometer's binder did, with
 * no turbo filter for every level check to pass through. An application context of its own (the
 * property): a cached one may have been bound before another test's application stopped and
 * re-initialized the JVM's logging, which removes every listener and appender, as it removed
 * Micrometer's turbo filter; one server has one application and one logging initialization.
 */
@TestPropertySource(properties = "logging.level.io.blackboard.platform.logging=INFO")
class LogEventMetricsTest extends IntegrationTest {

    private static final Logger log = LoggerFactory.getLogger(LogEventMetricsTest.class);

    @Test
    void eventsLoggedAreCountedByLevelAndNothingElse() {
        double warnings = scraped("warn");
        double errors = scraped("error");
        double debugs = scraped("debug");

        log.warn("a warning for LogEventMetricsTest");
        log.warn("another warning for LogEventMetricsTest");
        log.error("an error for LogEventMetricsTest");
        log.debug("a debug event below the level logged, not counted");

        // at least: another thread of this JVM may log a warning meanwhile (the exact counts are
        // the next test's, on a logging context of its own)
        assertThat(scraped("warn") - warnings).isGreaterThanOrEqualTo(2);
        assertThat(scraped("error") - errors).isGreaterThanOrEqualTo(1);
        assertThat(scraped("debug") - debugs).as("nothing logs below INFO").isZero();
        assertThat(api.getText("/actuator/prometheus").raw()).as("Micrometer's description")
                .contains("# HELP logback_events_total Number of log events that were enabled by the effective log level");
        assertThat(scraped("info")).as("every level is there from the start").isGreaterThanOrEqualTo(0);
        assertThat(((LoggerContext) LoggerFactory.getILoggerFactory()).getTurboFilterList())
                .as("no turbo filter: every isDebugEnabled() of every logger would ask it").isEmpty();
    }

    private double scraped(String level) {
        Api.Response scrape = api.getText("/actuator/prometheus");
        assertThat(scrape.status()).isEqualTo(200);
        Matcher line = Pattern.compile("(?m)^logback_events_total\\{[^}]*level=\"" + level + "\"[^}]*} (\\S+)$")
                .matcher(scrape.raw());
        assertThat(line.find()).as("logback_events_total for %s in %s", level, scrape.raw().length()).isTrue();
        return Double.parseDouble(line.group(1));
    }

    /**
     * Logback reset (the logging system configured again, which detaches every appender): events
     * are still counted; two bindings (two application contexts) each count into their own
     * registry; a destroyed binding counts no more.
     */
    @Test
    void countingOutlivesAResetOfTheLoggingAndEachBindingCountsForItself() {
        LoggerContext logback = new LoggerContext();
        logback.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(Level.INFO);
        MeterRegistry first = new SimpleMeterRegistry();
        MeterRegistry second = new SimpleMeterRegistry();
        LogEventMetrics one = new LogEventMetrics();
        LogEventMetrics other = new LogEventMetrics();
        one.bind(logback, first);
        other.bind(logback, second);
        ch.qos.logback.classic.Logger logger = logback.getLogger("reset.test");

        logger.warn("before the reset");
        logback.reset();
        logback.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(Level.INFO);
        logger.warn("after the reset");
        logger.info("an info event");
        logger.debug("below the level");
        one.destroy();
        logger.warn("after the first binding ended");

        assertThat(first.get("logback.events").tag("level", "warn").counter().count()).isEqualTo(2);
        assertThat(first.get("logback.events").tag("level", "info").counter().count()).isEqualTo(1);
        assertThat(first.get("logback.events").tag("level", "debug").counter().count()).isZero();
        assertThat(second.get("logback.events").tag("level", "warn").counter().count()).isEqualTo(3);
        logback.stop();
    }
}
