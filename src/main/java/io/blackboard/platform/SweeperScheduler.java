package io.blackboard.platform;

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
    private final SimpleAsyncTaskScheduler scheduler = new SimpleAsyncTaskScheduler();
    private volatile boolean running;

    SweeperScheduler(List<Sweeper> sweepers) {
        this.sweepers = sweepers;
        scheduler.setVirtualThreads(true);
        scheduler.setThreadNamePrefix("sweeper-");
    }

    @Override
    public void start() {
        for (Sweeper sweeper : sweepers) {
            scheduler.scheduleWithFixedDelay(() -> run(sweeper), sweeper.interval());
            log.info("Sweeper {} runs every {}", sweeper.name(), sweeper.interval());
        }
        running = true;
    }

    private void run(Sweeper sweeper) {
        try {
            Object result = sweeper.runOnce();
            log.debug("Sweeper {}: {}", sweeper.name(), result);
        } catch (RuntimeException e) {
            // the next interval tries again; a database outage must not kill the schedule
            log.warn("Sweeper {} failed: {}", sweeper.name(), e.toString());
        }
    }

    @Override
    public void stop() {
        running = false;
        scheduler.close();
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
