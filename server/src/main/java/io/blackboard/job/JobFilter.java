package io.blackboard.job;

import io.blackboard.platform.errors.BadRequest;
import io.blackboard.platform.web.NextPage;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.lang.Nullable;

/**
 * The filters of {@code GET /blackboard/jobs}; every one given must hold. {@code functionBlockIds}
 * are the blocks a name and version range matched (empty: none did, so no job matches);
 * {@code labels} must all be in the job's selector; the time ranges include their start and
 * exclude their end.
 */
record JobFilter(@Nullable JobStatus status, @Nullable UUID functionBlockId, @Nullable UUID workerId,
        @Nullable String correlationId, @Nullable Cursor after, @Nullable Outcome outcome,
        @Nullable FailureReason failureReason, @Nullable JobType type, @Nullable List<UUID> functionBlockIds,
        @Nullable Map<String, String> labels, @Nullable OffsetDateTime createdFrom,
        @Nullable OffsetDateTime createdTo, @Nullable OffsetDateTime pushedFrom, @Nullable OffsetDateTime pushedTo) {

    /** The constant of {@code type} named {@code value} in any case, or a 400 naming the choices. */
    static <E extends Enum<E>> @Nullable E parse(Class<E> type, String parameter, @Nullable String value) {
        if (value == null) {
            return null;
        }
        for (E constant : type.getEnumConstants()) {
            if (constant.name().equalsIgnoreCase(value)) {
                return constant;
            }
        }
        throw new BadRequest("Unknown %s '%s': expected one of %s".formatted(parameter, value,
                Arrays.stream(type.getEnumConstants()).map(Enum::name).toList()));
    }

    /** {@code key:value} pairs, as {@code ?label=site:a&label=role:edge}. */
    static @Nullable Map<String, String> labels(@Nullable List<String> pairs) {
        if (pairs == null || pairs.isEmpty()) {
            return null;
        }
        Map<String, String> labels = new LinkedHashMap<>();
        for (String pair : pairs) {
            int colon = pair.indexOf(':');
            if (colon < 1) {
                throw new BadRequest("label '" + pair + "' is not key:value");
            }
            labels.put(pair.substring(0, colon), pair.substring(colon + 1));
        }
        return labels;
    }

    /** A keyset position in creation order, opaque to clients. */
    record Cursor(OffsetDateTime createdAt, UUID id) {

        String encode() {
            return NextPage.encode(position());
        }

        /** The position as text, {@code <microseconds since the epoch>/<id>}, before it is made opaque. */
        String position() {
            return NextPage.position(createdAt, id);
        }

        static Cursor decode(String text) {
            NextPage.Position position = NextPage.parsePosition(text, "the 'next' value");
            return new Cursor(position.at(), position.id());
        }
    }
}
