package io.blackboard.job;

import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.UUID;

/**
 * {@code POST /blackboard/job/next}: a busy worker's round trip. It pushes what it finished
 * ({@code results}, each the body of a single push) and claims up to {@code limit} next jobs,
 * at once: there is no waiting here, an idle worker long-polls {@code /blackboard/job}.
 */
record NextRequest(
        @NotNull UUID workerId,
        @Size(max = 1000) List<@Valid @NotNull PushRequest> results,
        @Schema(defaultValue = "1") @Min(0) @Max(ClaimStore.MAX_POLL_LIMIT) Integer limit,
        @Size(min = 1, max = 1000) List<@NotNull UUID> functionBlockIds) {

    List<PushRequest> resultsOrNone() {
        return results == null ? List.of() : results;
    }

    /** The claim that follows the pushes, as a poll that does not wait. */
    PollRequest poll() {
        return new PollRequest(workerId, functionBlockIds, limit == null ? 1 : limit, 0);
    }
}
