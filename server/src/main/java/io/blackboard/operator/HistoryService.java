package io.blackboard.operator;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;

/** The history charts' series, read from the rollup that {@link HistoryRollup} writes. */
@Service
class HistoryService {

    private final HistoryStore store;

    HistoryService(HistoryStore store) {
        this.store = store;
    }

    @Transactional(readOnly = true)
    History history(HistoryRange range) {
        return history(null, range);
    }

    /** At {@code now} (null: the database's clock), in one snapshot so the series agree. */
    @Transactional(readOnly = true, isolation = Isolation.REPEATABLE_READ)
    History history(@Nullable OffsetDateTime now, HistoryRange range) {
        List<HistoryStore.Bucket> buckets = store.buckets(now, range);
        return new History(range.label(), range.bucket().toSeconds(),
                buckets.stream().map(HistoryStore.Bucket::at).toList(),
                new History.Jobs(counts(buckets, HistoryStore.Bucket::created),
                        counts(buckets, HistoryStore.Bucket::succeeded), counts(buckets, HistoryStore.Bucket::failed),
                        counts(buckets, HistoryStore.Bucket::cancelled), series(buckets, HistoryStore.Bucket::claims),
                        series(buckets, HistoryStore.Bucket::runs)),
                new History.Percentiles(series(buckets, HistoryStore.Bucket::claimP50),
                        series(buckets, HistoryStore.Bucket::claimP95), series(buckets, HistoryStore.Bucket::claimP99)),
                new History.Percentiles(series(buckets, HistoryStore.Bucket::runP50),
                        series(buckets, HistoryStore.Bucket::runP95), series(buckets, HistoryStore.Bucket::runP99)),
                new History.Workers(series(buckets, HistoryStore.Bucket::workersOnline),
                        series(buckets, HistoryStore.Bucket::workersUnreachable),
                        series(buckets, HistoryStore.Bucket::workersOffline)),
                depth(buckets, store.depth(now, range)));
    }

    private static <T> List<T> series(List<HistoryStore.Bucket> buckets, Function<HistoryStore.Bucket, T> value) {
        List<T> values = new ArrayList<>(buckets.size()); // a List.of-free list: it holds nulls
        buckets.forEach(bucket -> values.add(value.apply(bucket)));
        return values;
    }

    /** A count, or null for a bucket with nothing rolled up: unknown, not zero. */
    private static List<Long> counts(List<HistoryStore.Bucket> buckets, Function<HistoryStore.Bucket, Long> value) {
        return series(buckets, bucket -> bucket.rolled() ? value.apply(bucket) : null);
    }

    /** Per block, its depth in each bucket: 0 at a snapshot without a row for it, null without a snapshot. */
    private static List<History.QueueDepth> depth(List<HistoryStore.Bucket> buckets, List<HistoryStore.Depth> rows) {
        Map<UUID, Map<Instant, HistoryStore.Depth>> byBlock = new LinkedHashMap<>();
        rows.forEach(row -> byBlock.computeIfAbsent(row.functionBlockId(), id -> new HashMap<>())
                .put(row.at().toInstant(), row));
        List<History.QueueDepth> depth = new ArrayList<>();
        byBlock.forEach((id, at) -> {
            HistoryStore.Depth any = at.values().iterator().next();
            Function<Function<HistoryStore.Depth, Long>, List<Long>> values = value -> series(buckets, bucket -> {
                HistoryStore.Depth row = at.get(bucket.at().toInstant());
                return row != null ? value.apply(row) : bucket.snapshot() ? Long.valueOf(0) : null;
            });
            depth.add(new History.QueueDepth(id, any.name() + "@" + any.version(),
                    values.apply(HistoryStore.Depth::pending), values.apply(HistoryStore.Depth::polled)));
        });
        return depth;
    }
}
