package io.blackboard.job;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.UUID;

/** {@code POST /blackboard/job/progress}: how far the worker got with a job it holds. */
record ProgressRequest(
        @NotNull UUID jobId,
        @NotNull UUID workerId,
        @Min(1) Integer attempt,
        @NotNull @Min(0) @Max(100) Integer percent,
        @Size(max = 200) String message) {
}
