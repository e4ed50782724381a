package io.blackboard.job;

import io.blackboard.platform.errors.BadRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.UUID;
import org.springframework.lang.Nullable;

/** The filters of {@code GET /blackboard/jobs} and {@code GET /workers/{id}/jobs}. */
record JobFilter(@Nullable JobStatus status, @Nullable UUID functionBlockId, @Nullable UUID workerId,
        @Nullable String correlationId, @Nullable Cursor after) {

    /** A keyset position in creation order, opaque to clients. */
    record Cursor(OffsetDateTime createdAt, UUID id) {

        String encode() {
            Instant at = createdAt.toInstant();
            long micros = at.getEpochSecond() * 1_000_000 + at.getNano() / 1_000;
            return Base64.getUrlEncoder().withoutPadding()
                    .encodeToString((micros + "/" + id).getBytes(StandardCharsets.UTF_8));
        }

        static Cursor decode(String text) {
            try {
                String[] parts = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8).split("/");
                long micros = Long.parseLong(parts[0]);
                Instant at = Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000),
                        Math.floorMod(micros, 1_000_000) * 1_000L);
                return new Cursor(at.atOffset(ZoneOffset.UTC), UUID.fromString(parts[1]));
            } catch (RuntimeException e) {
                throw new BadRequest("'" + text + "' is not a cursor this server returned (use the 'next' value)");
            }
        }
    }
}
