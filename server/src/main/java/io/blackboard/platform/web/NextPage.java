package io.blackboard.platform.web;

import io.blackboard.platform.errors.BadRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.lang.Nullable;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

/**
 * A page of a list whose answer is a JSON array: the next page is named by a {@code Link} header
 * ({@code rel="next"}, RFC 8288) with the same request and {@code after} set to an opaque cursor,
 * so the body stays the array older clients read. Absent on the last page.
 */
public final class NextPage {

    private NextPage() {
    }

    /**
     * The answer for {@code fetched}, read with a limit of {@code limit + 1}: at most
     * {@code limit} items, and a link to the next page when there was one more.
     */
    public static <T> ResponseEntity<List<T>> of(List<T> fetched, int limit, Function<T, String> cursorOf) {
        if (fetched.size() <= limit) {
            return ResponseEntity.ok(fetched);
        }
        List<T> page = fetched.subList(0, limit);
        String next = ServletUriComponentsBuilder.fromCurrentRequest()
                .replaceQueryParam("after", encode(cursorOf.apply(page.getLast()))).build().toUriString();
        return ResponseEntity.ok().header(HttpHeaders.LINK, "<" + next + ">; rel=\"next\"").body(page);
    }

    /** A position in (time, id) order, as text for {@link #of}'s cursor. */
    public static String position(OffsetDateTime at, UUID id) {
        Instant instant = at.toInstant();
        return (instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1_000) + "/" + id;
    }

    /** A (time, id) position read back from its cursor. */
    public record Position(OffsetDateTime at, UUID id) {
    }

    /** The position of a cursor made from {@link #position}, or a 400. */
    public static Position parsePosition(String cursor) {
        return parsePosition(cursor, "the Link header's");
    }

    /** The same, the 400 saying where the right cursor is ({@code hint}). */
    public static Position parsePosition(String cursor, String hint) {
        String text = decode(cursor);
        try {
            String[] parts = text.split("/");
            long micros = Long.parseLong(parts[0]);
            Instant at = Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1_000L);
            return new Position(at.atOffset(ZoneOffset.UTC), UUID.fromString(parts[1]));
        } catch (RuntimeException e) {
            throw new BadRequest("'" + cursor + "' is not a cursor this server returned (use " + hint + ")");
        }
    }

    /** An opaque cursor for a position written as text. */
    public static String encode(String position) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(position.getBytes(StandardCharsets.UTF_8));
    }

    /** The position a cursor of {@link #encode} holds, or null when {@code cursor} is not one. */
    public static @Nullable String decode(String cursor) {
        try {
            return new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
