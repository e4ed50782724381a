package io.blackboard.platform.web;

import com.fasterxml.jackson.annotation.JsonFormat;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.lang.Nullable;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.ext.javatime.ser.OffsetDateTimeSerializer;
import tools.jackson.databind.module.SimpleModule;

/**
 * Every time in an answer (a job has up to six) is an {@code OffsetDateTime} that Jackson writes
 * with {@link DateTimeFormatter#ISO_OFFSET_DATE_TIME}: its general formatter took 2% of the
 * server's CPU on the push + next round trip (a JFR profile, BENCHMARKS.md). {@link Serializer}
 * writes the same text directly. Where Jackson would format otherwise (a format annotated on a
 * property, a context time zone, timestamps) it does as Jackson does.
 */
@Configuration(proxyBeanMethods = false)
class IsoTimes {

    @Bean
    JsonMapperBuilderCustomizer isoTimesWrittenDirectly() {
        return builder -> builder.addModule(new SimpleModule("blackboard-iso-times")
                .addSerializer(OffsetDateTime.class, new Serializer()));
    }

    /**
     * Jackson's serializer of {@code OffsetDateTime}s, its default text written by {@link #format}.
     * Jackson writes with a copy made for each property and root value ({@code createContextual},
     * through {@code withFormat} and {@code withFeatures}): each copy is one of these too, or
     * the copy in use would be Jackson's own and this one never called.
     */
    static final class Serializer extends OffsetDateTimeSerializer {

        Serializer() {
        }

        private Serializer(Serializer base, @Nullable Boolean useTimestamp, @Nullable DateTimeFormatter formatter,
                @Nullable JsonFormat.Shape shape) {
            super(base, useTimestamp, formatter, shape);
        }

        private Serializer(Serializer base, @Nullable DateTimeFormatter formatter, @Nullable Boolean useTimestamp,
                @Nullable Boolean useNanoseconds, @Nullable JsonFormat.Shape shape) {
            super(base, formatter, useTimestamp, useNanoseconds, shape);
        }

        @Override
        public OffsetDateTimeSerializer withFormatter(DateTimeFormatter formatter) {
            return new Serializer(this, _useTimestamp, formatter, _shape);
        }

        @Override
        protected Serializer withFormat(@Nullable DateTimeFormatter formatter, @Nullable Boolean useTimestamp,
                @Nullable JsonFormat.Shape shape) {
            return new Serializer(this, useTimestamp, formatter, shape);
        }

        @Override
        protected Serializer withFeatures(@Nullable Boolean writeZoneId, @Nullable Boolean writeNanoseconds) {
            return new Serializer(this, _formatter, _useTimestamp, writeNanoseconds, _shape);
        }

        @Override
        protected String formatValue(OffsetDateTime value, SerializationContext ctxt) {
            if (_formatter != null || ctxt.getConfig().hasExplicitTimeZone()
                    && ctxt.isEnabled(DateTimeFeature.WRITE_DATES_WITH_CONTEXT_TIME_ZONE)) {
                return super.formatValue(value, ctxt);
            }
            return format(value);
        }
    }

    /** {@link DateTimeFormatter#ISO_OFFSET_DATE_TIME}'s text of this time. */
    static String format(OffsetDateTime time) {
        int year = time.getYear();
        if (year < 0 || year > 9999) {
            return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(time); // a sign, or more digits
        }
        StringBuilder text = new StringBuilder(36);
        digits(text, year, 4).append('-');
        digits(text, time.getMonthValue(), 2).append('-');
        digits(text, time.getDayOfMonth(), 2).append('T');
        digits(text, time.getHour(), 2).append(':');
        digits(text, time.getMinute(), 2).append(':');
        digits(text, time.getSecond(), 2);
        int nano = time.getNano();
        if (nano != 0) { // as many digits of the fraction as it takes, none when it is zero
            int width = 9;
            while (nano % 10 == 0) {
                nano /= 10;
                width--;
            }
            digits(text.append('.'), nano, width);
        }
        return text.append(time.getOffset().getId()).toString(); // Z, +01:00, +05:30:15
    }

    private static StringBuilder digits(StringBuilder text, int value, int width) {
        String digits = Integer.toString(value);
        for (int pad = width - digits.length(); pad > 0; pad--) {
            text.append('0');
        }
        return text.append(digits);
    }
}
