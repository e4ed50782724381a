package io.blackboard.worker;

import io.blackboard.platform.errors.BadRequest;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.springframework.lang.Nullable;

/** A page of a worker's history, oldest first, and the cursor of the next one (null on the last page). */
record WorkerEventPage(List<WorkerEvent> events, @Nullable String next) {

    /**
     * A position in a worker's history: the last event read. Opaque to clients. Ids of one
     * worker's events follow their commit order ({@link WorkerStore}), so reading on from one
     * never skips an event committed since.
     */
    record Cursor(long afterId) {

        String encode() {
            return Base64.getUrlEncoder().withoutPadding()
                    .encodeToString(("e" + afterId).getBytes(StandardCharsets.UTF_8));
        }

        static Cursor decode(String text) {
            try {
                String decoded = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8);
                long id = Long.parseLong(decoded.substring(1));
                if (decoded.charAt(0) != 'e' || id < 0) {
                    throw new IllegalArgumentException(decoded);
                }
                return new Cursor(id);
            } catch (RuntimeException e) {
                throw new BadRequest("'" + text + "' is not a cursor this server returned (use the 'next' value)");
            }
        }
    }
}
