package io.blackboard.worker;

import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;
import java.util.Map;
import java.util.UUID;
import org.springframework.lang.Nullable;

/**
 * {@code POST /workers/register}: what a worker may say about itself, and nothing server-owned.
 * {@code previousWorkerId}: the deleted worker it was before the server forgot it (a 404 on a
 * call with its token), so that each history names the other; it gets no jobs or state of it.
 */
record RegisterWorker(
        @NotBlank @Size(max = 200) String name,
        @Size(max = 255) String hostname,
        @Size(max = 64) String ip,
        @PositiveOrZero Integer pid,
        @Size(max = 100) String version,
        @Size(max = 64) Map<@NotBlank @Size(max = 100) String, @NotNull @Size(max = 500) String> labels,
        @Schema(defaultValue = "1") @Min(1) @Max(10000) Integer concurrency,
        @Size(min = 1, max = 100) String sdkName,
        @Size(min = 1, max = 100) String sdkVersion,
        @Nullable UUID previousWorkerId) {

    int concurrencyOrDefault() {
        return concurrency == null ? 1 : concurrency;
    }

    Map<String, String> labelsOrEmpty() {
        return labels == null ? Map.of() : labels;
    }
}
