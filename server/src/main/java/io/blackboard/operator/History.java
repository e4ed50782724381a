package io.blackboard.operator;

import io.swagger.v3.oas.annotations.media.Schema;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * What the dashboard's history charts draw: one value per bucket in every series, in the order
 * of {@code buckets}, null where the bucket has nothing rolled up (the server was down, or the
 * minute is not over).
 */
@Schema(description = "Series over time, one value per bucket (null: nothing rolled up for it)")
record History(
        @Schema(example = "1h") String range,
        @Schema(description = "Seconds per bucket: 60 for 1h, 900 for 24h, 7200 for 7d") long bucketSeconds,
        @Schema(description = "Each bucket's start") List<OffsetDateTime> buckets,
        Jobs jobs,
        @Schema(description = "From when a job became claimable (created, due, re-queued) to its claim")
        Percentiles claimLatencyMs,
        @Schema(description = "From a claim to the worker's result for it") Percentiles runTimeMs,
        @Schema(description = "Workers by state at the bucket's last snapshot") Workers workers,
        @Schema(description = "Jobs PENDING and POLLED per function block at the bucket's last snapshot; "
                + "blocks that had none in the range are left out") List<QueueDepth> queueDepth) {

    /** Jobs created, ended by outcome, claims and attempts run, per bucket. */
    record Jobs(List<Long> created, List<Long> succeeded, List<Long> failed, List<Long> cancelled,
            List<Long> claims, List<Long> runs) {
    }

    /**
     * Per bucket. In buckets of one minute, the minute's percentiles; in longer ones, p50 is the
     * minutes' p50s weighted by their samples and p95, p99 the worst minute's.
     */
    record Percentiles(List<Double> p50, List<Double> p95, List<Double> p99) {
    }

    record Workers(List<Long> online, List<Long> unreachable, List<Long> offline) {
    }

    record QueueDepth(UUID functionBlockId, @Schema(example = "configBackup@2.0.0") String functionBlock,
            List<Long> pending, List<Long> polled) {
    }
}
