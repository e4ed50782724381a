package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.QueryPlan;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The job list at a million jobs (issue 24): for every filter, PostgreSQL's own choice of plan
 * (sequential scans allowed, the statistics fresh) reads an index, never the table whole.
 */
class JobListPlanTest extends BlackboardTest {

    private static final int JOBS = 1_000_000;

    @Autowired
    DataSource dataSource;

    @Test
    void everyFilterIsServedByAnIndexAtAMillionJobs() throws Exception {
        workerServingEcho(Map.of());
        List<Map<String, Object>> blocks = new ArrayList<>();
        for (int b = 0; b < 20; b++) {
            blocks.add(block("block" + b, "1.0.0"));
        }
        List<UUID> ids = registerBlocks(worker, blocks);
        UUID someWorker = UUID.randomUUID();
        // a day of jobs a second apart: 4% PENDING, 1% POLLED, 90% SUCCESS, 5% FAILURE (half of them
        // STUCK_TIMEOUT), 1% ROLLBACK, one in a thousand with a selector, ten per correlation id
        jdbc.sql("""
                insert into job (id, function_block_id, type, status, attempt, worker_id, selector, correlation_id,
                                 created_at, polled_at, deadline, pushed_at, outcome, failure_reason, push_xid, push_seq)
                select gen_random_uuid(), (cast(:blocks as uuid[]))[1 + n % 20],
                       case when n % 100 = 0 then 'ROLLBACK' else 'EXECUTE' end,
                       case when n % 100 < 4 then 'PENDING' when n % 100 = 4 then 'POLLED' else 'PUSHED' end,
                       case when n % 100 < 4 then 0 else 1 end,
                       case when n % 100 < 4 then null
                            when n % 50 = 7 then cast(:worker as uuid) else gen_random_uuid() end,
                       case when n % 1000 = 7 then '{"site": "x"}'::jsonb else '{}'::jsonb end,
                       'wf-' || (n / 10),
                       c.at, case when n % 100 >= 4 then c.at + interval '1 second' end,
                       case when n % 100 = 4 then c.at + interval '1 hour' end,
                       case when n % 100 >= 5 then c.at + interval '2 seconds' end,
                       case when n % 100 >= 95 then 'FAILURE' when n % 100 >= 5 then 'SUCCESS' end,
                       case when n % 100 >= 95 then (case when n % 2 = 0 then 'STUCK_TIMEOUT' else 'WORKER_REPORTED' end) end,
                       case when n % 100 >= 5 then pg_current_xact_id() end,
                       case when n % 100 >= 5 then n end
                  from generate_series(1, :jobs) n,
                       lateral (select timestamptz '2026-01-01 00:00:00+00' + n * interval '1 second' as at) c
                """).param("blocks", io.blackboard.platform.sql.SqlArrays.uuids(ids)).param("worker", someWorker)
                .param("jobs", JOBS).update();
        jdbc.sql("analyze job").update();

        OffsetDateTime noon = OffsetDateTime.of(2026, 1, 1, 12, 0, 0, 0, ZoneOffset.UTC);
        Map<String, JobFilter> filters = new LinkedHashMap<>();
        filters.put("none", filter(Map.of()));
        filters.put("status=PENDING", filter(Map.of("status", JobStatus.PENDING)));
        filters.put("status=POLLED", filter(Map.of("status", JobStatus.POLLED)));
        filters.put("status=PUSHED", filter(Map.of("status", JobStatus.PUSHED)));
        filters.put("outcome=FAILURE", filter(Map.of("outcome", Outcome.FAILURE)));
        filters.put("failureReason=STUCK_TIMEOUT", filter(Map.of("failureReason", FailureReason.STUCK_TIMEOUT)));
        filters.put("type=ROLLBACK", filter(Map.of("type", JobType.ROLLBACK)));
        filters.put("functionBlock", filter(Map.of("functionBlockIds", List.of(ids.get(3)))));
        filters.put("workerId", filter(Map.of("workerId", someWorker)));
        filters.put("correlationId", filter(Map.of("correlationId", "wf-50000")));
        filters.put("label", filter(Map.of("labels", Map.of("site", "x"))));
        filters.put("created range", filter(Map.of("createdFrom", noon, "createdTo", noon.plusHours(1))));
        filters.put("pushed range", filter(Map.of("pushedFrom", noon, "pushedTo", noon.plusHours(1))));
        filters.put("outcome=SUCCESS, type, block, created after noon", filter(Map.of("outcome", Outcome.SUCCESS,
                "type", JobType.EXECUTE, "functionBlockIds", List.of(ids.get(5)), "createdFrom", noon)));

        for (Map.Entry<String, JobFilter> entry : filters.entrySet()) {
            JobStore.Query query = JobStore.listQuery(entry.getValue(), 100);
            QueryPlan plan = QueryPlan.analyze(dataSource, query.sql(), arrayLiterals(query.params()));
            assertThat(plan.seqScans()).as(entry.getKey() + "\n" + plan).isEmpty();
            assertThat(plan.indexes()).as(entry.getKey() + "\n" + plan).isNotEmpty();
        }
    }

    /** A filter from the fields given (the rest null). */
    private static JobFilter filter(Map<String, Object> given) {
        @SuppressWarnings("unchecked")
        Map<String, String> labels = (Map<String, String>) given.get("labels");
        @SuppressWarnings("unchecked")
        List<UUID> blocks = (List<UUID>) given.get("functionBlockIds");
        return new JobFilter((JobStatus) given.get("status"), null, (UUID) given.get("workerId"),
                (String) given.get("correlationId"), null, (Outcome) given.get("outcome"),
                (FailureReason) given.get("failureReason"), (JobType) given.get("type"), blocks, labels,
                (OffsetDateTime) given.get("createdFrom"), (OffsetDateTime) given.get("createdTo"),
                (OffsetDateTime) given.get("pushedFrom"), (OffsetDateTime) given.get("pushedTo"));
    }

    /** The list's parameters for EXPLAIN's literals: text arrays as PostgreSQL array literals. */
    static MapSqlParameterSource arrayLiterals(Map<String, Object> params) {
        MapSqlParameterSource source = new MapSqlParameterSource();
        params.forEach((name, value) -> source.addValue(name, value instanceof String[] array
                ? "{" + String.join(",", array) + "}" : value));
        return source;
    }
}
