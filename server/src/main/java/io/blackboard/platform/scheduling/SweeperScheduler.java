package io.blackboard.platform.scheduling;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;
import org.springframework.stereotype.Component;

/**
 * The one place that runs sweepers on a clock. Off with
 * {@code blackboard.scheduling.enabled=false} (the tests drive {@code runOnce()} themselves).
 */
@Component
@ConditionalOnProperty(name = "blackboard.scheduling.enabled", havingValue = "true", matchIfMissing = true)
class SweeperScheduler implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(SweeperScheduler.class);

    private final List<Sweeper> sweepers;
    private final MeterRegistry registry;
    /**
     * One scheduler per sweeper: a scheduler runs its fixed-delay tasks one after another on one
     * thread, so a long pass of one sweeper (the paced retention reaper with a backlog) would
     * hold up the others, and dead workers would go unnoticed meanwhile.
     */
    private final List<SimpleAsyncTaskScheduler> schedulers = new ArrayList<>();
    private volatile boolean running;

    SweeperScheduler(List<Sweeper> sweepers, MeterRegistry registry) {
        this.sweepers = sweepers;
        this.registry = registry;
    }

    @Override
    public synchronized void start() {
        for (Sweeper sweeper : sweepers) {
            SimpleAsyncTaskScheduler scheduler = new SimpleAsyncTaskScheduler();
            scheduler.setVirtualThreads(true);
            scheduler.setThreadNamePrefix("sweeper-" + sweeper.name() + "-");
            scheduler.scheduleWithFixedDelay(() -> run(sweeper), sweeper.interval());
            schedulers.add(scheduler);
            log.info("Sweeper {} runs every {}", sweeper.name(), sweeper.interval());
        }
        running = true;
    }

    /** One pass, timed ({@code blackboard.sweeper.runs}) and its counts added to {@code blackboard.sweeper.rows}. */
    void run(Sweeper sweeper) {
        Timer.Sample sample = Timer.start(registry);
        String outcome = "error";
        try {
            Sweeper.Pass pass = sweeper.runOnce();
            outcome = "success";
            count(sweeper.name(), pass);
            log.debug("Sweeper {}: {}", sweeper.name(), pass.changes());
        } catch (RuntimeException e) {
            // the next interval tries again; a database outage must not kill the schedule
            log.warn("Sweeper {} failed: {}", sweeper.name(), e.toString());
        } finally {
            sample.stop(Timer.builder("blackboard.sweeper.runs").description("Sweeper passes and their duration")
                    .tag("sweeper", sweeper.name()).tag("outcome", outcome).register(registry));
        }
    }

    private void count(String sweeper, Sweeper.Pass pass) {
        pass.changes().forEach((change, rows) -> Counter.builder("blackboard.sweeper.rows")
                .description("Rows the sweepers changed").tag("sweeper", sweeper).tag("change", change)
                .register(registry).increment(rows));
    }

    @Override
    public synchronized void stop() {
        running = false;
        schedulers.forEach(SimpleAsyncTaskScheduler::close);
        schedulers.clear();
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
