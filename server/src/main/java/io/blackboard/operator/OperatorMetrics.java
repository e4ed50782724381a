package io.blackboard.operator;

import io.blackboard.functionblock.CatalogEntry;
import io.blackboard.functionblock.FunctionBlockService;
import io.blackboard.worker.WorkerCensus;
import io.blackboard.worker.WorkerDirectory;
import io.blackboard.worker.WorkerState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The gauges read from the database: jobs by status and function block, oldest PENDING age,
 * unroutable blocks and ONLINE workers per block, workers by state, deaf workers. All come from
 * one snapshot (the catalog query and a worker census) that a scrape refreshes in the
 * background once it is older than {@link #FRESH_FOR}: however often Prometheus scrapes, the
 * database answers at most one snapshot per interval, and a scrape never waits on it (nor hangs
 * while PostgreSQL is down). Function blocks are never deleted, so a block's gauges stay.
 */
@Component
class OperatorMetrics implements MeterBinder {

    static final Duration FRESH_FOR = Duration.ofSeconds(5);
    private static final Logger log = LoggerFactory.getLogger(OperatorMetrics.class);

    /** A block as its gauges' tags name it: (name, version) is unique and never reassigned. */
    record Block(String name, String version) {

        static Block of(CatalogEntry entry) {
            return new Block(entry.name(), entry.version());
        }
    }

    /** What the gauges show; {@code takenAt} is System.nanoTime() when its queries started. */
    record Snapshot(Map<Block, CatalogEntry> catalog, WorkerCensus census, long takenAt) {

        static final Snapshot EMPTY = new Snapshot(Map.of(), new WorkerCensus(Map.of(), 0), 0);

        double block(Block block, ToDoubleFunction<CatalogEntry> value) {
            CatalogEntry entry = catalog.get(block);
            return entry == null ? 0 : value.applyAsDouble(entry);
        }
    }

    private final FunctionBlockService functionBlocks;
    private final WorkerDirectory workers;
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private final Set<Block> gauged = ConcurrentHashMap.newKeySet();
    private volatile Snapshot snapshot = Snapshot.EMPTY;
    private volatile MeterRegistry registry;

    OperatorMetrics(FunctionBlockService functionBlocks, WorkerDirectory workers) {
        this.functionBlocks = functionBlocks;
        this.workers = workers;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        this.registry = registry;
        for (WorkerState state : WorkerState.values()) {
            Gauge.builder("blackboard.workers", () -> current().census().byState().getOrDefault(state, 0L))
                    .tag("state", state.name()).description("Live (not deleted) workers by state")
                    .register(registry);
        }
        Gauge.builder("blackboard.workers.deaf", () -> current().census().deaf())
                .description("ONLINE workers that ping but have not polled while jobs they could take wait")
                .register(registry);
    }

    /** The snapshot to show; starts a background refresh when it is stale. */
    Snapshot current() {
        Snapshot shown = snapshot;
        boolean stale = shown == Snapshot.EMPTY || System.nanoTime() - shown.takenAt() > FRESH_FOR.toNanos();
        if (stale && refreshing.compareAndSet(false, true)) {
            Thread.ofVirtual().name("operator-metrics").start(() -> {
                try {
                    refresh();
                } finally {
                    refreshing.set(false);
                }
            });
        }
        return shown;
    }

    /** Reads a new snapshot now, and gauges any function block seen for the first time. */
    void refresh() {
        long started = System.nanoTime();
        try {
            List<CatalogEntry> catalog = functionBlocks.catalog();
            WorkerCensus census = workers.census();
            Snapshot read = new Snapshot(catalog.stream().collect(Collectors.toUnmodifiableMap(Block::of,
                    entry -> entry)), census, started);
            synchronized (this) {
                // a slower refresh that started earlier must not replace a newer snapshot
                if (snapshot == Snapshot.EMPTY || started - snapshot.takenAt() > 0) {
                    snapshot = read;
                }
            }
            if (registry != null) {
                catalog.stream().map(Block::of).filter(gauged::add).forEach(this::gauge);
            }
        } catch (RuntimeException e) {
            // keep showing the last snapshot; the readiness probe reports the database itself
            log.debug("Operator metrics not refreshed: {}", e.toString());
        }
    }

    private void gauge(Block block) {
        Tags tags = Tags.of("function_block", block.name(), "version", block.version());
        Gauge.builder("blackboard.jobs", () -> current().block(block, CatalogEntry::pending))
                .tags(tags).tag("status", "PENDING").description("Jobs on the blackboard by status")
                .register(registry);
        Gauge.builder("blackboard.jobs", () -> current().block(block, CatalogEntry::scheduled))
                .tags(tags).tag("status", "SCHEDULED").description("Jobs on the blackboard by status")
                .register(registry);
        Gauge.builder("blackboard.jobs", () -> current().block(block, CatalogEntry::parked))
                .tags(tags).tag("status", "PARKED").description("Jobs on the blackboard by status")
                .register(registry);
        Gauge.builder("blackboard.jobs", () -> current().block(block, CatalogEntry::polled))
                .tags(tags).tag("status", "POLLED").description("Jobs on the blackboard by status")
                .register(registry);
        Gauge.builder("blackboard.oldest.pending.age", () -> current().block(block, OperatorMetrics::ageSeconds))
                .tags(tags).baseUnit("seconds").description("Age of the oldest PENDING job (0: none)")
                .register(registry);
        Gauge.builder("blackboard.function.block.unroutable",
                        () -> current().block(block, entry -> entry.unroutable() ? 1 : 0))
                .tags(tags).description("1 while PENDING jobs of the block match no runnable worker")
                .register(registry);
        Gauge.builder("blackboard.function.block.online.workers",
                        () -> current().block(block, CatalogEntry::onlineWorkers))
                .tags(tags).description("ONLINE workers serving the block").register(registry);
    }

    private static double ageSeconds(CatalogEntry entry) {
        return entry.oldestPendingAgeMs() == null ? 0 : entry.oldestPendingAgeMs() / 1000.0;
    }
}
