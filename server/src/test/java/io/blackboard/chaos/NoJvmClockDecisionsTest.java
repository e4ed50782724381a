package io.blackboard.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The server's liveness, deadline and retention decisions are made by PostgreSQL's now(), so
 * a replica's JVM clock, ahead or behind, cannot change them. This keeps it so: the only read
 * of the wall clock in the server orders ids; everything else measures waits with nanoTime.
 */
class NoJvmClockDecisionsTest {

    private static final Pattern WALL_CLOCK = Pattern.compile(
            "Instant\\.now\\(|System\\.currentTimeMillis\\(|(LocalDateTime|OffsetDateTime|ZonedDateTime|LocalDate)"
                    + "\\.now\\(|Clock\\.system|new Date\\(\\)");

    @Test
    void theServerReadsTheWallClockOnlyToOrderIds() throws IOException {
        List<String> reads;
        try (Stream<Path> sources = Files.walk(Path.of("src/main/java"))) {
            reads = sources.filter(path -> path.toString().endsWith(".java"))
                    .flatMap(NoJvmClockDecisionsTest::wallClockReads).toList();
        }
        assertThat(reads).containsExactly("src/main/java/io/blackboard/platform/sql/Ids.java");
    }

    private static Stream<String> wallClockReads(Path source) {
        try {
            return WALL_CLOCK.matcher(Files.readString(source)).results().map(match -> source.toString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
