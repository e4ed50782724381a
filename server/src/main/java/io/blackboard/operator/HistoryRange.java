package io.blackboard.operator;

import io.blackboard.platform.errors.BadRequest;
import java.time.Duration;

/**
 * The spans the history charts offer, each in buckets that keep a chart at 60 to 96 points: an
 * hour by the minute, a day by the quarter hour, a week by two hours.
 */
enum HistoryRange {
    HOUR("1h", Duration.ofHours(1), Duration.ofMinutes(1)),
    DAY("24h", Duration.ofDays(1), Duration.ofMinutes(15)),
    WEEK("7d", Duration.ofDays(7), Duration.ofHours(2));

    private final String label;
    private final Duration span;
    private final Duration bucket;

    HistoryRange(String label, Duration span, Duration bucket) {
        this.label = label;
        this.span = span;
        this.bucket = bucket;
    }

    String label() {
        return label;
    }

    Duration span() {
        return span;
    }

    Duration bucket() {
        return bucket;
    }

    static HistoryRange parse(String value) {
        for (HistoryRange range : values()) {
            if (range.label.equalsIgnoreCase(value)) {
                return range;
            }
        }
        throw new BadRequest("Unknown range '" + value + "': expected 1h, 24h or 7d");
    }
}
