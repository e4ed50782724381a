package io.blackboard.job;

import io.blackboard.platform.web.ServerVersion;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.UUID;

/** {@code POST /blackboard/job}: a worker asks for work. */
record PollRequest(
        @NotNull UUID workerId,
        @Size(min = 1, max = 1000) List<@NotNull UUID> functionBlockIds,
        @Schema(defaultValue = "1") @Min(1) @Max(ClaimStore.MAX_POLL_LIMIT) Integer limit,
        @Schema(defaultValue = "0") @Min(0) @Max(ServerVersion.MAX_POLL_WAIT_MS) Integer waitMs) {

    int limitOrDefault() {
        return limit == null ? 1 : limit;
    }

    int waitMsOrDefault() {
        return waitMs == null ? 0 : waitMs;
    }
}
