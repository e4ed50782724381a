package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Every transition moves its counter once; the registry is shared, so each test reads differences. */
class JobMetricsTest extends BlackboardTest {

    @Autowired
    MeterRegistry registry;

    @Autowired
    StuckJobSweeper stuckJobs;

    @Autowired
    JobMetrics metrics;

    @BeforeEach
    void worker() {
        workerServingEcho(Map.of("concurrency", 5));
    }

    double counter(String name, String... tags) {
        return registry.get(name).tags(tags).counter().count();
    }

    long timed(String name, String... tags) {
        return registry.get(name).tags(tags).timer().count();
    }

    @Test
    void creationClaimAndPushAreCountedAndTimed() {
        double created = counter("blackboard.jobs.submitted");
        double claimed = counter("blackboard.jobs.claimed");
        long waited = timed("blackboard.job.queue.wait");
        double succeeded = counter("blackboard.jobs.pushed", "outcome", "SUCCESS");
        double failed = counter("blackboard.jobs.pushed", "outcome", "FAILURE");
        long executed = timed("blackboard.job.execution", "outcome", "FAILURE");

        List<UUID> jobs = createJobs(echo, 3);
        createJob(echo, Map.of("idempotencyKey", "k"));
        createJob(echo, Map.of("idempotencyKey", "k"));
        assertThat(counter("blackboard.jobs.submitted") - created).as("a repeated key creates nothing").isEqualTo(4);

        claim(worker, 2);
        assertThat(counter("blackboard.jobs.claimed") - claimed).isEqualTo(2);
        assertThat(timed("blackboard.job.queue.wait") - waited).isEqualTo(2);

        push(jobs.get(0), worker, Map.of());
        push(jobs.get(0), worker, Map.of());
        push(jobs.get(1), worker, Map.of("status", "FAILURE", "error", Map.of("message", "boom")));
        assertThat(counter("blackboard.jobs.pushed", "outcome", "SUCCESS") - succeeded)
                .as("a repeated push is answered, not counted again").isEqualTo(1);
        assertThat(counter("blackboard.jobs.pushed", "outcome", "FAILURE") - failed).isEqualTo(1);
        assertThat(timed("blackboard.job.execution", "outcome", "FAILURE") - executed).isEqualTo(1);
    }

    @Test
    void serverSideFailuresAreCountedByReasonAndReleasesAndCancelsToo() {
        double stuck = counter("blackboard.jobs.failed", "reason", "STUCK_TIMEOUT");
        double offline = counter("blackboard.jobs.failed", "reason", "WORKER_OFFLINE");
        double released = counter("blackboard.jobs.released");
        double cancelled = counter("blackboard.jobs.cancelled");
        List<UUID> jobs = createJobs(echo, 4);
        claim(worker, 3);

        expire(jobs.get(0));
        stuckJobs.runOnce();
        jdbc.sql("update job set polled_at = now() - interval '1 minute' where id = :id")
                .param("id", jobs.get(1)).update();
        api.post("/workers/" + worker + "/ping", Map.of("activeJobIds", List.of(jobs.get(2))));
        api.post("/blackboard/jobs/" + jobs.get(3) + "/cancel", null);
        api.post("/workers/" + worker + "/unregister", null);

        assertThat(counter("blackboard.jobs.failed", "reason", "STUCK_TIMEOUT") - stuck).isEqualTo(1);
        assertThat(counter("blackboard.jobs.released") - released).isEqualTo(1);
        assertThat(counter("blackboard.jobs.cancelled") - cancelled).isEqualTo(1);
        assertThat(counter("blackboard.jobs.failed", "reason", "WORKER_OFFLINE") - offline).isEqualTo(1);
    }

    @Test
    void aRequeueIsCountedApartFromAFinalFailure() {
        UUID backup = registerBlocks(worker, List.of(Map.of("name", "backup", "version", "1", "idempotent", true)))
                .getFirst();
        double requeued = counter("blackboard.jobs.requeued", "reason", "STUCK_TIMEOUT");
        double failed = counter("blackboard.jobs.failed", "reason", "STUCK_TIMEOUT");
        UUID job = createJob(backup, Map.of("maxAttempts", 2));
        claim(worker, 1);
        expire(job);

        stuckJobs.runOnce();

        assertThat(counter("blackboard.jobs.requeued", "reason", "STUCK_TIMEOUT") - requeued).isEqualTo(1);
        assertThat(counter("blackboard.jobs.failed", "reason", "STUCK_TIMEOUT") - failed).isZero();
    }

    @Autowired
    PollWaiters waiters;

    @Test
    void prometheusShowsTheBlackboardMetricsBesideTheStandardOnes() {
        List<PollWaiters.Waiter> parked = List.of(waiters.park(Set.of(), Map.of()), waiters.park(Set.of(), Map.of()),
                waiters.park(Set.of(), Map.of()));
        try {
            Api.Response scrape = api.getText("/actuator/prometheus");
            assertThat(scrape.status()).isEqualTo(200);
            assertThat(scrape.raw())
                    .contains("blackboard_jobs_submitted_total")
                    .contains("blackboard_jobs_claimed_total")
                    .contains("blackboard_jobs_pushed_total{application=\"blackboard\",outcome=\"SUCCESS\"}")
                    .contains("blackboard_jobs_failed_total{application=\"blackboard\",reason=\"WORKER_DELETED\"}")
                    .contains("blackboard_jobs_requeued_total")
                    .contains("blackboard_jobs_released_total")
                    .contains("blackboard_job_queue_wait_seconds_bucket")
                    .contains("blackboard_job_execution_seconds_count")
                    .contains("blackboard_parked_polls{application=\"blackboard\"} 3")
                    .contains("jvm_memory_used_bytes")
                    .contains("hikaricp_connections_active")
                    .contains("http_server_requests_seconds");
        } finally {
            parked.forEach(waiters::leave);
        }
    }
}
