package io.blackboard.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * The history rollup against jobs and events seeded at chosen times: its rows and the
 * {@code /operator/history} answer match them number for number (counts by outcome,
 * percentiles, queue depth, workers by state); it writes each minute once however often and
 * however many run it; it catches up minutes it missed; it forgets rows past 8 days.
 */
class HistoryRollupTest extends IntegrationTest {

    @Autowired
    HistoryRollup rollup;

    @Autowired
    HistoryService history;

    /** The start of the current minute, on the database's clock, and "now" for the rollup: half a minute in. */
    OffsetDateTime minute;
    OffsetDateTime now;
    /** Two minutes of one quarter hour with claims and results; the latest finished minute. */
    OffsetDateTime m1;
    OffsetDateTime m2;
    OffsetDateTime latest;
    UUID blockA;
    UUID blockB;
    UUID worker;

    @BeforeEach
    void clock() {
        jdbc.sql("truncate history_minute cascade").update();
        minute = jdbc.sql("select date_trunc('minute', now())").query(OffsetDateTime.class).single()
                .withOffsetSameInstant(ZoneOffset.UTC);
        now = minute.plusSeconds(30);
        OffsetDateTime quarter = jdbc.sql("select date_bin('15 minutes', cast(:at as timestamptz), "
                + "timestamptz '2000-01-01 00:00:00+00')").param("at", minute.minusMinutes(20))
                .query(OffsetDateTime.class).single().withOffsetSameInstant(ZoneOffset.UTC);
        m1 = quarter.plusMinutes(2);
        m2 = m1.plusMinutes(1);
        latest = minute.minusMinutes(1);
    }

    @Test
    void rollsUpCountsPercentilesDepthAndWorkersAndTheApiAnswersThem() {
        seed();
        HistoryRollup.Result pass = rollup.runOnce(now);

        assertThat(pass.minutes()).as("a day of minutes up to the latest finished").isEqualTo(24 * 60 + 1);
        assertMinute(m1, 3, new double[] {2000, 5000, 1000}, 2, new double[] {7000, 20000});
        assertMinute(m2, 3, new double[] {40000, 31000, 2000}, 2, new double[] {10000, 1000});
        assertThat(blockRows(m1)).containsExactlyInAnyOrder(
                List.of("a", 3, 1, 1, 0, -1, -1), List.of("b", 1, 0, 0, 1, -1, -1));
        assertThat(blockRows(m2)).containsExactly(List.of("a", 1, 1, 0, 0, -1, -1));
        assertThat(blockRows(m1.minusMinutes(2))).containsExactly(List.of("b", 1, 0, 0, 0, -1, -1));
        // the latest finished minute carries the snapshot: depth per block, workers by state
        assertThat(blockRows(latest)).containsExactlyInAnyOrder(
                List.of("a", 1, 0, 0, 0, 1, 1), List.of("b", 0, 0, 0, 0, 0, 1));
        assertThat(jdbc.sql("select concat_ws(',', workers_online, workers_unreachable, workers_offline) "
                + "from history_minute where minute = :m and snapshot").param("m", latest).query(String.class).single())
                .as("online, unreachable, offline; the deleted worker not counted").isEqualTo("1,1,1");
        assertThat(jdbc.sql("select count(*) from history_minute where snapshot").query(Long.class).single())
                .isEqualTo(1);

        Api.Response hour = api.as("test-operator").get("/operator/history");
        assertThat(hour.status()).as(hour.toString()).isEqualTo(200);
        assertThat(hour.at("/range").asString()).isEqualTo("1h");
        assertThat(hour.at("/bucketSeconds").asLong()).isEqualTo(60);
        assertThat(hour.at("/buckets").size()).isEqualTo(60);
        int i = bucketIndex(hour.body(), m1);
        assertThat(hour.at("/jobs/created/" + i).asLong()).isEqualTo(4);
        assertThat(hour.at("/jobs/succeeded/" + i).asLong()).isEqualTo(1);
        assertThat(hour.at("/jobs/failed/" + i).asLong()).isEqualTo(1);
        assertThat(hour.at("/jobs/cancelled/" + i).asLong()).isEqualTo(1);
        assertThat(hour.at("/jobs/claims/" + i).asLong()).isEqualTo(3);
        assertThat(hour.at("/claimLatencyMs/p50/" + i).asDouble()).isCloseTo(2000, within(0.01));
        assertThat(hour.at("/claimLatencyMs/p95/" + i).asDouble()).isCloseTo(percentile(0.95, 2000, 5000, 1000),
                within(0.01));
        assertThat(hour.at("/runTimeMs/p99/" + i).asDouble()).isCloseTo(percentile(0.99, 7000, 20000), within(0.01));
        assertThat(hour.at("/workers/online/" + i).isNull()).as("no snapshot for m1").isTrue();
        int last = bucketIndex(hour.body(), latest);
        assertThat(hour.at("/workers/unreachable/" + last).asLong()).isEqualTo(1);
        JsonNode depth = hour.at("/queueDepth");
        assertThat(depth.size()).isEqualTo(2);
        assertThat(depth.get(0).get("functionBlock").asString()).isEqualTo("a@1.0.0");
        assertThat(depth.get(0).at("/pending/" + last).asLong()).isEqualTo(1);
        assertThat(depth.get(0).at("/polled/" + last).asLong()).isEqualTo(1);
        assertThat(depth.get(1).at("/pending/" + last).asLong()).as("a snapshot without a row is 0").isZero();
        assertThat(depth.get(1).at("/polled/" + last).asLong()).isEqualTo(1);
        assertThat(depth.get(1).at("/polled/" + i).isNull()).as("no snapshot: unknown").isTrue();
        assertThat(hour.at("/jobs/created/" + (hour.at("/buckets").size() - 1)).isNull())
                .as("the current minute is not rolled up").isTrue();

        // a quarter hour adds up its minutes: counts summed, p50 weighted by samples, p95 and p99 the worst minute's
        History day = history.history(now, HistoryRange.DAY);
        assertThat(day.buckets()).hasSize(96);
        int q = indexOf(day.buckets(), m1.minusMinutes(2));
        assertThat(day.jobs().claims().get(q)).isEqualTo(6);
        assertThat(day.jobs().created().get(q)).isEqualTo(jdbc.sql("select count(*) from job where created_at >= :from "
                + "and created_at < :from + interval '15 minutes'").param("from", m1.minusMinutes(2))
                .query(Long.class).single());
        assertThat(day.claimLatencyMs().p50().get(q)).isCloseTo(
                (percentile(0.5, 2000, 5000, 1000) * 3 + percentile(0.5, 40000, 31000, 2000) * 3) / 6, within(0.01));
        assertThat(day.claimLatencyMs().p95().get(q)).isCloseTo(
                Math.max(percentile(0.95, 2000, 5000, 1000), percentile(0.95, 40000, 31000, 2000)), within(0.01));
        assertThat(day.runTimeMs().p99().get(q)).isCloseTo(
                Math.max(percentile(0.99, 7000, 20000), percentile(0.99, 10000, 1000)), within(0.01));
        Api.Response week = api.as("test-operator").get("/operator/history?range=7d");
        assertThat(week.at("/bucketSeconds").asLong()).isEqualTo(7200);
        assertThat(week.at("/buckets").size()).isEqualTo(84);
    }

    @Test
    void writesEachMinuteOnceWhenRunTwiceOrByTwoReplicasAtOnce() throws Exception {
        seed();
        CyclicBarrier start = new CyclicBarrier(2);
        long written;
        try (ExecutorService replicas = Executors.newFixedThreadPool(2)) {
            List<CompletableFuture<HistoryRollup.Result>> passes = List.of(1, 2).stream()
                    .map(r -> CompletableFuture.supplyAsync(() -> {
                        await(start);
                        return rollup.runOnce(now);
                    }, replicas)).toList();
            written = passes.stream().mapToLong(f -> f.join().minutes()).sum();
        }
        assertThat(written).isEqualTo(24 * 60 + 1).isEqualTo(count("history_minute"));
        String before = table();
        assertThat(rollup.runOnce(now).minutes()).isZero();
        assertThat(table()).isEqualTo(before);
        assertThat(rollup.runOnce(now.plusSeconds(40)).minutes()).as("the next minute, once finished").isEqualTo(1);
    }

    @Test
    void catchesUpMinutesMissedWhileNoServerRanFromTheAuditTrail() {
        seed();
        rollup.runOnce(now);
        String m1Rows = minuteRows(m1);
        // the server was down from m1 to the latest minute: those rows were never written
        jdbc.sql("delete from history_minute where minute >= :from").param("from", m1).update();

        HistoryRollup.Result pass = rollup.runOnce(now.plusMinutes(3));

        long missed = java.time.Duration.between(m1, latest).toMinutes() + 1 + 3;
        assertThat(pass.minutes()).isEqualTo(missed);
        assertThat(minuteRows(m1)).as("counts and percentiles as they were").isEqualTo(m1Rows);
        assertThat(blockRows(latest)).as("the depth of a missed minute is absent, not zero")
                .containsExactly(List.of("a", 1, 0, 0, 0, -1, -1));
        assertThat(jdbc.sql("select count(*) from history_minute where snapshot").query(Long.class).single())
                .as("only the newest finished minute has a snapshot").isEqualTo(1);
        assertThat(jdbc.sql("select snapshot from history_minute where minute = :m").param("m", latest)
                .query(Boolean.class).single()).isFalse();
    }

    @Test
    void forgetsRowsOlderThanEightDays() {
        jdbc.sql("insert into history_minute (minute, claims, runs, snapshot) values (:old, 1, 0, false), "
                + "(:kept, 2, 0, false)").param("old", minute.minusDays(8).minusMinutes(1))
                .param("kept", minute.minusDays(7)).update();
        HistoryRollup.Result pass = rollup.runOnce(now);
        assertThat(pass.deleted()).isEqualTo(1);
        assertThat(jdbc.sql("select claims from history_minute where claims > 0").query(Integer.class).list())
                .containsExactly(2);
    }

    @Test
    void anUnknownRangeIsABadRequest() {
        assertProblem(api.as("test-operator").get("/operator/history?range=1y"), 400, "expected 1h, 24h or 7d");
        assertThat(api.as("test-operator").get("/operator/history?range=24H").status()).isEqualTo(200);
    }

    // ---- the seeded past ---------------------------------------------------------------------

    /**
     * In m1: a and b created, claimed after 2 s and 5 s, a succeeds after 7 s, b fails after 20 s;
     * c, created two minutes earlier and scheduled, falls due and is claimed 1 s later (still held);
     * d is created and cancelled; f is created. In m2: e is created and claimed 40 s later, succeeds
     * after 10 s; f is claimed after 31 s, fails after 1 s into a retry, falls due and is claimed
     * 2 s later (held). In the latest minute: g is created (pending). Workers: one in each state,
     * and a deleted one, not counted.
     */
    private void seed() {
        worker = registerWorker("w-online");
        List<UUID> blocks = registerBlocks(worker, List.of(block("a", "1.0.0"), block("b", "1.0.0")));
        blockA = blocks.get(0);
        blockB = blocks.get(1);
        UUID unreachable = registerWorker("w-unreachable");
        UUID offline = registerWorker("w-offline");
        UUID deleted = registerWorker("w-deleted");
        jdbc.sql("update worker set state = 'UNREACHABLE' where id = :id").param("id", unreachable).update();
        jdbc.sql("update worker set state = 'OFFLINE' where id = :id").param("id", offline).update();
        jdbc.sql("update worker set state = 'OFFLINE', deleted_at = now() where id = :id").param("id", deleted).update();

        UUID a = job(blockA, m1.plusSeconds(1));
        claimed(a, 1, m1.plusSeconds(3));
        pushed(a, 1, "SUCCESS", m1.plusSeconds(10));
        UUID b = job(blockA, m1.plusSeconds(2));
        claimed(b, 1, m1.plusSeconds(7));
        pushed(b, 1, "FAILURE", m1.plusSeconds(27));
        UUID c = job(blockB, m1.minusMinutes(2));
        event(c, "DUE", 0, m1.plusSeconds(20), null);
        claimed(c, 1, m1.plusSeconds(21));
        UUID d = job(blockB, m1.plusSeconds(5));
        event(d, "CANCELLED", 0, m1.plusSeconds(6), null);
        ended(d, "CANCELLED", m1.plusSeconds(6));
        UUID f = job(blockA, m1.plusSeconds(30));

        UUID e = job(blockA, m2);
        claimed(e, 1, m2.plusSeconds(40));
        pushed(e, 1, "SUCCESS", m2.plusSeconds(50));
        claimed(f, 1, m2.plusSeconds(1));
        event(f, "RETRYING", 1, m2.plusSeconds(2), "FAILURE, retry at then");
        event(f, "DUE", 1, m2.plusSeconds(10), null);
        claimed(f, 2, m2.plusSeconds(12));

        job(blockA, latest.plusSeconds(1));
    }

    /** A PENDING job created at {@code at}: as the server writes it, without a CREATED row (the row is its creation). */
    private UUID job(UUID block, OffsetDateTime at) {
        UUID id = UUID.randomUUID();
        jdbc.sql("insert into job (id, function_block_id, type, max_attempts, created_at) "
                + "values (:id, :block, 'EXECUTE', 3, :at)")
                .param("id", id).param("block", block).param("at", at).update();
        return id;
    }

    /** Claimed at {@code at} for this attempt: POLLED, with its CLAIMED event. */
    private void claimed(UUID job, int attempt, OffsetDateTime at) {
        jdbc.sql("""
                update job set status = 'POLLED', attempt = :attempt, worker_id = :worker, polled_at = :at,
                               deadline = now() + interval '1 hour'
                 where id = :id""").param("id", job).param("attempt", attempt).param("worker", worker)
                .param("at", at).update();
        event(job, "CLAIMED", attempt, at, null);
    }

    /** The worker's result at {@code at}: PUSHED with its outcome, and its PUSHED event. */
    private void pushed(UUID job, int attempt, String outcome, OffsetDateTime at) {
        ended(job, outcome, at);
        event(job, "PUSHED", attempt, at, outcome);
    }

    private void ended(UUID job, String outcome, OffsetDateTime at) {
        jdbc.sql("""
                update job set status = 'PUSHED', outcome = :outcome, pushed_at = :at, push_xid = pg_current_xact_id(),
                               push_seq = nextval('job_push_seq'),
                               failure_reason = case when :outcome = 'FAILURE' then 'WORKER_REPORTED' end
                 where id = :id""").param("id", job).param("outcome", outcome).param("at", at).update();
    }

    private void event(UUID job, String kind, int attempt, OffsetDateTime at, String detail) {
        jdbc.sql("""
                insert into job_event (job_id, kind, attempt, worker_id, actor, detail, at)
                values (:job, :kind, :attempt, :worker, 'test', :detail, :at)""").param("job", job).param("kind", kind)
                .param("attempt", attempt).param("worker", worker).param("detail", detail).param("at", at).update();
    }

    // ---- reading back ------------------------------------------------------------------------

    private void assertMinute(OffsetDateTime at, int claims, double[] latencies, int runs, double[] runTimes) {
        Map<String, Object> row = jdbc.sql("select * from history_minute where minute = :m").param("m", at)
                .query().singleRow();
        assertThat(row.get("claims")).isEqualTo(claims);
        assertThat(row.get("runs")).isEqualTo(runs);
        assertThat(row.get("snapshot")).isEqualTo(false);
        assertThat(row.get("workers_online")).isNull();
        for (String p : List.of("50", "95", "99")) {
            double fraction = Integer.parseInt(p) / 100.0;
            assertThat((Double) row.get("claim_p" + p + "_ms")).as("claim p" + p)
                    .isCloseTo(percentile(fraction, latencies), within(0.01));
            assertThat((Double) row.get("run_p" + p + "_ms")).as("run p" + p)
                    .isCloseTo(percentile(fraction, runTimes), within(0.01));
        }
    }

    /** A minute's block rows as [block, created, succeeded, failed, cancelled, pending, polled], -1 for null. */
    private List<List<Object>> blockRows(OffsetDateTime at) {
        return jdbc.sql("""
                select fb.name, hb.created, hb.succeeded, hb.failed, hb.cancelled, coalesce(hb.pending, -1) as pending,
                       coalesce(hb.polled, -1) as polled
                  from history_block_minute hb join function_block fb on fb.id = hb.function_block_id
                 where hb.minute = :m""").param("m", at)
                .query((rs, n) -> List.<Object>of(rs.getString(1), rs.getInt(2), rs.getInt(3), rs.getInt(4),
                        rs.getInt(5), rs.getInt(6), rs.getInt(7)))
                .list();
    }

    private String minuteRows(OffsetDateTime at) {
        return jdbc.sql("select row_to_json(h)::jsonb - 'rolled_at' - 'snapshot' - 'workers_online' "
                + "- 'workers_unreachable' - 'workers_offline' from history_minute h where minute = :m")
                .param("m", at).query(String.class).single() + blockRows(at).stream()
                .map(row -> row.subList(0, 5).toString()).sorted().toList();
    }

    private String table() {
        return jdbc.sql("select string_agg(row_to_json(h)::text, E'\\n' order by minute) from history_minute h")
                .query(String.class).single();
    }

    private static int bucketIndex(JsonNode history, OffsetDateTime at) {
        JsonNode buckets = history.get("buckets");
        for (int i = 0; i < buckets.size(); i++) {
            if (OffsetDateTime.parse(buckets.get(i).asString()).isEqual(at)) {
                return i;
            }
        }
        throw new AssertionError(at + " not among " + buckets);
    }

    private static int indexOf(List<OffsetDateTime> buckets, OffsetDateTime at) {
        for (int i = 0; i < buckets.size(); i++) {
            if (buckets.get(i).isEqual(at)) {
                return i;
            }
        }
        throw new AssertionError(at + " not among " + buckets);
    }

    /** PostgreSQL's percentile_cont: linear interpolation between the closest ranks. */
    static double percentile(double fraction, double... values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        double rank = fraction * (sorted.length - 1);
        int below = (int) Math.floor(rank);
        int above = (int) Math.ceil(rank);
        return sorted[below] + (rank - below) * (sorted[above] - sorted[below]);
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
