package io.blackboard.job;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.springframework.stereotype.Component;

/**
 * The blackboard's counters and timers, one call per transition from the services that make
 * it. Durations are differences of database timestamps, so replicas with skewed clocks agree.
 * Every tag value is known up front and registered at zero, so {@code rate()} works from the
 * first scrape.
 */
@Component
class JobMetrics {

    /** Why the server took a claim back; the {@code reason} tag of failed and re-queued jobs. */
    static final List<FailureReason> SERVER_SIDE = List.of(FailureReason.STUCK_TIMEOUT,
            FailureReason.EXECUTION_TIMEOUT, FailureReason.WORKER_OFFLINE, FailureReason.WORKER_DELETED);

    private final Counter created;
    private final Counter claimed;
    private final Counter released;
    private final Counter undelivered;
    private final Counter cancelled;
    private final Counter retried;
    private final Counter due;
    private final Counter parked;
    private final Map<PushStatus, Counter> pushed = new EnumMap<>(PushStatus.class);
    private final Map<PushStatus, Timer> execution = new EnumMap<>(PushStatus.class);
    private final Map<FailureReason, Counter> failed = new EnumMap<>(FailureReason.class);
    private final Map<FailureReason, Counter> requeued = new EnumMap<>(FailureReason.class);
    private final Timer queueWait;
    JobMetrics(MeterRegistry registry, PollWaiters waiters) {
        // not "...created": Prometheus strips that suffix, reserved for OpenMetrics creation timestamps
        created = counter(registry, "blackboard.jobs.submitted", "Jobs written onto the blackboard");
        claimed = counter(registry, "blackboard.jobs.claimed", "Jobs handed to a worker by a poll");
        released = counter(registry, "blackboard.jobs.released",
                "Claims given back to PENDING because the worker's heartbeat did not know them");
        undelivered = counter(registry, "blackboard.jobs.undelivered",
                "Claims given back to PENDING at once because the answer carrying them could not be delivered");
        cancelled = counter(registry, "blackboard.jobs.cancelled", "Jobs cancelled by the engine");
        retried = counter(registry, "blackboard.jobs.retried",
                "Reported failures scheduled to run again under the job's retry policy");
        due = counter(registry, "blackboard.jobs.due", "Scheduled jobs (and retries) that fell due and became claimable");
        parked = counter(registry, "blackboard.jobs.parked",
                "Jobs whose final reported failure their retry policy parked as a dead letter");
        for (PushStatus outcome : PushStatus.values()) {
            pushed.put(outcome, Counter.builder("blackboard.jobs.pushed").tag("outcome", outcome.name())
                    .description("Results pushed by workers").register(registry));
            execution.put(outcome, Timer.builder("blackboard.job.execution").tag("outcome", outcome.name())
                    .description("From claim to the worker's push").register(registry));
        }
        for (FailureReason reason : SERVER_SIDE) {
            failed.put(reason, Counter.builder("blackboard.jobs.failed").tag("reason", reason.name())
                    .description("Jobs the server failed for good").register(registry));
            requeued.put(reason, Counter.builder("blackboard.jobs.requeued").tag("reason", reason.name())
                    .description("Jobs the server took back and re-queued as a new attempt").register(registry));
        }
        queueWait = Timer.builder("blackboard.job.queue.wait")
                .description("From creation to the claim (across attempts for a re-queued job)").register(registry);
        Gauge.builder("blackboard.parked.polls", waiters, PollWaiters::parked)
                .description("Long polls parked on this replica, waiting for a job").register(registry);
    }

    private static Counter counter(MeterRegistry registry, String name, String description) {
        return Counter.builder(name).description(description).register(registry);
    }

    void created(int count) {
        created.increment(count);
    }

    void claimed(List<JobView> jobs) {
        claimed.increment(jobs.size());
        // a scheduled job, or a retry, waits in the queue from its time on, not from its creation
        jobs.forEach(job -> queueWait.record(between(job.runAt() != null && job.runAt().isAfter(job.createdAt())
                ? job.runAt() : job.createdAt(), job.polledAt())));
    }

    void pushed(JobView job) {
        PushStatus outcome = job.outcome() == Outcome.SUCCESS ? PushStatus.SUCCESS : PushStatus.FAILURE;
        pushed.get(outcome).increment();
        execution.get(outcome).record(between(job.polledAt(), job.pushedAt()));
    }

    /** A failure pass (stuck, worker lost) and what it did: failed for good or re-queued. */
    void takenBack(FailureReason reason, JobLeaseStore.Failed batch) {
        failed.get(reason).increment(batch.failed());
        requeued.get(reason).increment(batch.requeued());
    }

    void released(int count) {
        released.increment(count);
    }

    void undelivered(int count) {
        undelivered.increment(count);
    }

    void cancelled() {
        cancelled.increment();
    }

    void cancelled(int count) {
        cancelled.increment(count);
    }

    void retried() {
        retried.increment();
    }

    void parked() {
        parked.increment();
    }

    void due(int count) {
        due.increment(count);
    }

    private static Duration between(OffsetDateTime from, OffsetDateTime to) {
        return from == null || to == null || to.isBefore(from) ? Duration.ZERO : Duration.between(from, to);
    }
}
