package io.blackboard.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A benchmark, not a timed test: the requests each console page makes (the history charts' over
 * eight days of rollup rows), against 10,000 workers and a million jobs seeded by SQL, each timed as the median of five and printed as one line
 * ({@code BENCHMARK console ...}). Asserts that the answers are right, never how fast they came.
 * 30 to 50 s on two cores, most of it seeding; {@code -Dblackboard.benchmark.jobs=100000}
 * runs it smaller.
 */
class ConsoleScaleBenchmarkTest extends IntegrationTest {

    private static final int WORKERS = 10_000;
    private static final int JOBS = Integer.getInteger("blackboard.benchmark.jobs", 1_000_000);
    private static final int RUNS = 5;

    private final Map<String, Long> timings = new LinkedHashMap<>();

    @Test
    void thePagesRequestsAtTenThousandWorkersAndAMillionJobs() {
        long seeding = System.nanoTime();
        ConsoleFleet.seed(jdbc, WORKERS, JOBS);
        long seeded = (System.nanoTime() - seeding) / 1_000_000;
        UUID worker = jdbc.sql("select id from worker where name = 'worker-00424'").query(UUID.class).single();
        UUID job = jdbc.sql("select id from job where correlation_id = 'wf-5000' and status = 'PUSHED' "
                + "order by created_at limit 1").query(UUID.class).single();
        String block = api.get("/blackboard/jobs/" + job).at("/functionBlockId").asString();

        dashboard();
        history();
        time("job", "/blackboard/jobs/" + job, r -> assertThat(r.at("/id").asString()).isEqualTo(job.toString()));
        time("job events", "/blackboard/jobs/" + job + "/events", r -> assertThat(r.body().isArray()).isTrue());
        time("job block", "/function-blocks/" + block, r -> assertThat(r.at("/name").asString()).startsWith("block"));
        time("run", "/blackboard/jobs?correlationId=wf-5000&limit=1000",
                r -> assertThat(r.at("/jobs").size()).isEqualTo(10));
        workerPage(worker);
        search(worker);

        System.out.printf("BENCHMARK console %d workers %d jobs (seeded in %d ms), median of %d, ms: %s%n",
                WORKERS, JOBS, seeded, RUNS, timings);
    }

    private void dashboard() {
        int live = WORKERS; // every worker not deleted, OFFLINE ones too
        time("dashboard workers", "/operator/workers", r -> assertThat(r.body().size()).isEqualTo(live));
        time("dashboard blocks", "/function-blocks", r -> assertThat(r.body().size()).isEqualTo(20));
        time("dashboard failures", "/operator/failures?limit=25", r -> assertThat(r.body().size()).isEqualTo(25));
        time("dashboard running", "/operator/running?limit=25", r -> assertThat(r.body().size()).isEqualTo(25));
    }

    /**
     * The history charts' requests over a full rollup: eight days of minutes, every block in
     * every minute (what the rollup keeps at most), as HistoryPlanTest seeds them.
     */
    private void history() {
        ConsoleFleet.seedHistory(jdbc);
        time("history 1h", "/operator/history?range=1h", r -> assertThat(r.at("/buckets").size()).isEqualTo(60));
        time("history 24h", "/operator/history?range=24h", r -> assertThat(r.at("/buckets").size()).isEqualTo(96));
        time("history 7d", "/operator/history?range=7d", r -> assertThat(r.at("/buckets").size()).isEqualTo(84));
    }

    private void workerPage(UUID worker) {
        String base = "/workers/" + worker;
        time("worker", base, r -> assertThat(r.at("/name").asString()).isEqualTo("worker-00424"));
        time("worker events", base + "/events?limit=1000", r -> assertThat(r.at("/events").isArray()).isTrue());
        time("worker blocks", base + "/function-blocks", r -> assertThat(r.body().size()).isEqualTo(1));
        time("worker held", base + "/jobs?status=polled&limit=100", r -> assertThat(r.body().size()).isEqualTo(1));
        time("worker recent", base + "/jobs?limit=25", r -> assertThat(r.body().size()).isEqualTo(25));
    }

    private void search(UUID worker) {
        time("search id", "/operator/search?q=" + worker, r -> assertThat(r.at("/workers").size()).isEqualTo(1));
        time("search correlation", "/operator/search?q=wf-5000", r -> assertThat(r.at("/jobs").size()).isEqualTo(10));
        time("search name", "/operator/search?q=WORKER-0042", r -> assertThat(r.at("/workers").size()).isEqualTo(10));
        time("search label", "/operator/search?q=rack%3Dr424", r -> assertThat(r.at("/workers").size()).isEqualTo(1));
        time("search reason", "/operator/search?q=worker_deleted&limit=100",
                r -> assertThat(r.at("/jobs").size()).isEqualTo(Math.min(100, JOBS / 10_000)));
    }

    /** The median of {@link #RUNS} requests, each answer checked. */
    private void time(String name, String path, Consumer<Api.Response> check) {
        long[] millis = new long[RUNS];
        for (int run = 0; run < RUNS; run++) {
            long start = System.nanoTime();
            Api.Response response = api.as("test-operator").get(path);
            millis[run] = (System.nanoTime() - start) / 1_000_000;
            assertThat(response.status()).as(name + ": " + response).isEqualTo(200);
            check.accept(response);
        }
        Arrays.sort(millis);
        timings.put(name, millis[RUNS / 2]);
    }
}
