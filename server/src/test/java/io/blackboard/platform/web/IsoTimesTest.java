package io.blackboard.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonFormat;
import io.blackboard.IntegrationTest;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.json.JsonMapper;

/** The server writes every time as Jackson's ISO_OFFSET_DATE_TIME does, through {@link IsoTimes}. */
class IsoTimesTest extends IntegrationTest {

    @Autowired
    JsonMapper json;

    @Test
    void theTextIsTheIsoFormattersToTheCharacter() {
        List<ZoneOffset> offsets = List.of(ZoneOffset.UTC, ZoneOffset.ofHours(1), ZoneOffset.ofHoursMinutes(-5, -30),
                ZoneOffset.ofHoursMinutesSeconds(5, 30, 15), ZoneOffset.MAX, ZoneOffset.MIN);
        List<Integer> nanos = List.of(0, 1, 10, 500_000_000, 123_000_000, 123_456_000, 123_456_789, 999_999_999, 100);
        for (int year : List.of(0, 1, 999, 1970, 2026, 9999, 10_000, 123_456, -1, -2026)) {
            for (ZoneOffset offset : offsets) {
                for (int nano : nanos) {
                    OffsetDateTime time = OffsetDateTime.of(year, 1, 2, 3, 0, 0, nano, offset);
                    assertThat(IsoTimes.format(time)).isEqualTo(DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(time));
                }
            }
        }
        Random random = new Random(29);
        for (int i = 0; i < 100_000; i++) {
            OffsetDateTime time = OffsetDateTime.of(random.nextInt(12_000) - 1_000, 1 + random.nextInt(12),
                    1 + random.nextInt(28), random.nextInt(24), random.nextInt(60), random.nextInt(60),
                    random.nextBoolean() ? random.nextInt(1_000_000_000) : random.nextInt(1_000) * 1_000_000,
                    ZoneOffset.ofTotalSeconds((random.nextInt(36 * 3600) - 18 * 3600) / 60 * 60));
            assertThat(IsoTimes.format(time)).isEqualTo(DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(time));
        }
    }

    @Test
    void theServersMapperWritesTimesThroughIt() {
        // what Jackson writes with: the copy made for a property or a root value, not the one registered
        assertThat(json._serializationContext().findPrimaryPropertySerializer(OffsetDateTime.class, null))
                .isInstanceOf(IsoTimes.Serializer.class);
        assertThat(json._serializationContext().findRootValueSerializer(OffsetDateTime.class))
                .isInstanceOf(IsoTimes.Serializer.class);
        OffsetDateTime time = OffsetDateTime.of(2026, 11, 29, 7, 30, 0, 250_000_000, ZoneOffset.UTC);
        assertThat(json.writeValueAsString(Map.of("at", time))).isEqualTo("{\"at\":\"2026-11-29T07:30:00.25Z\"}");
        assertThat(json.writeValueAsString(List.of(time.withNano(0)))).isEqualTo("[\"2026-11-29T07:30:00Z\"]");
    }

    /** A property with a pattern of its own is written by that pattern, as Jackson writes it. */
    record Dated(@JsonFormat(pattern = "yyyy-MM-dd") OffsetDateTime day, OffsetDateTime at) {
    }

    @Test
    void aPropertysOwnPatternStillWins() {
        OffsetDateTime time = OffsetDateTime.of(2026, 11, 29, 7, 30, 0, 0, ZoneOffset.ofHours(1));
        assertThat(json.writeValueAsString(new Dated(time, time)))
                .isEqualTo("{\"day\":\"2026-11-29\",\"at\":\"2026-11-29T07:30:00+01:00\"}");
    }

    @Test
    void aWorkersTimesReadAsTheyAreStored() {
        UUID id = registerWorker("times");
        jdbc.sql("update worker set registered_at = timestamptz '2026-11-29 07:30:00.000120+00' where id = :id")
                .param("id", id).update();
        assertThat(api.get("/workers/" + id).at("/registeredAt").asString()).isEqualTo("2026-11-29T07:30:00.00012Z");
        OffsetDateTime stored = jdbc.sql("select last_seen_at from worker where id = :id").param("id", id)
                .query(OffsetDateTime.class).single();
        assertThat(api.get("/workers/" + id).at("/lastSeenAt").asString())
                .isEqualTo(DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(stored.withOffsetSameInstant(ZoneOffset.UTC)));
    }
}
