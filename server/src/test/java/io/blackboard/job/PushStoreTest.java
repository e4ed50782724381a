package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.QueryPlan;
import io.blackboard.TestRows;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The push against the real database: only the holder's live claim lands, once; a push that
 * lost finds nothing, leaves the job as it was, and the verdict tells a repeat from a conflict;
 * every push finds its job by primary key.
 */
class PushStoreTest extends BlackboardTest {

    private static final String RESULT = "{\"ok\": true}";

    @Autowired
    PushStore store;

    @Autowired
    DataSource dataSource;

    @Test
    void aSecondPushOfTheSameClaimLandsNothingAndIsTheRepeatOfTheFirst() {
        workerServingEcho(Map.of());
        UUID job = claimedJob(echo);
        assertThat(store.push(success(job, worker, 1), false)).isPresent();
        String pushed = row(job);

        assertThat(store.push(success(job, worker, 1), false)).isEmpty();
        assertThat(store.push(failure(job, worker), false)).isEmpty();
        assertThat(row(job)).isEqualTo(pushed);
        assertThat(pushedEvents(job)).isEqualTo(1);
        assertThat(store.verdict(success(job, worker, 1))).get()
                .returns(true, PushStore.Verdict::repeated).returns(true, PushStore.Verdict::mine);
        assertThat(store.verdict(failure(job, worker))).get()
                .returns(false, PushStore.Verdict::repeated).returns(true, PushStore.Verdict::mine);
    }

    @Test
    void aPushOfAnotherAttemptOrByAnotherWorkerLandsNothing() {
        workerServingEcho(Map.of());
        UUID other = worker("other", Map.of(), List.of(block("echo", "1.0.0")));
        UUID job = claimedJob(echo);
        String claimed = row(job);

        assertThat(store.push(success(job, worker, 2), false)).isEmpty();
        assertThat(store.push(success(job, other, 1), false)).isEmpty();
        assertThat(store.push(success(job, other, null), false)).isEmpty();
        assertThat(row(job)).isEqualTo(claimed);
        assertThat(store.verdict(success(job, other, 1))).get()
                .returns(false, PushStore.Verdict::repeated).returns(false, PushStore.Verdict::mine);
    }

    @Test
    void anUncheckedSuccessOnABlockWithAResultSchemaLandsNothingUntilItIsChecked() {
        worker = registerWorker("w");
        UUID typed = registerBlocks(worker, List.of(Map.of("name", "typed", "version", "1",
                "resultDataJsonSchema", Map.of("type", "object")))).getFirst();
        UUID job = claimedJob(typed);
        String claimed = row(job);

        assertThat(store.push(success(job, worker, 1), false)).isEmpty();
        assertThat(row(job)).isEqualTo(claimed);
        assertThat(store.resultSchemas(List.of(job))).containsOnlyKeys(job);
        assertThat(store.push(success(job, worker, 1), true)).isPresent();
    }

    @Test
    void aBatchLandsEachPushOnceAndOnlyOnItsLiveClaim() {
        workerServingEcho(Map.of("concurrency", 2));
        List<UUID> jobs = createJobs(echo, 2);
        claim(worker, 2);
        String batch = Api.json(List.of(batchItem(0, jobs.getFirst(), worker, 1), batchItem(1, jobs.getLast(), worker, 2)));

        assertThat(store.pushBatch(List.of(worker), batch)).as("the second names an attempt that is not live")
                .containsOnlyKeys(0);
        String pushed = row(jobs.getFirst());
        String held = row(jobs.getLast());

        assertThat(store.pushBatch(List.of(worker), batch)).isEmpty();
        assertThat(row(jobs.getFirst())).isEqualTo(pushed);
        assertThat(row(jobs.getLast())).isEqualTo(held);
        assertThat(pushedEvents(jobs.getFirst())).isEqualTo(1);
    }

    /** One statement lands the pushes of several workers, each only on its own worker's live claim, recorded as that worker's. */
    @Test
    void aBatchOfSeveralWorkersLandsEachPushOnlyOnItsOwnWorkersClaim() {
        workerServingEcho(Map.of());
        UUID other = worker("other", Map.of(), List.of(block("echo", "1.0.0")));
        List<UUID> jobs = createJobs(echo, 2);
        claim(worker, 1);
        claim(other, 1);
        String batch = Api.json(List.of(batchItem(0, jobs.getFirst(), other, 1), batchItem(1, jobs.getFirst(), worker, 1),
                batchItem(2, jobs.getLast(), other, 1)));

        assertThat(store.pushBatch(List.of(worker, other), batch)).as("not another worker's claim").containsOnlyKeys(1, 2);
        assertThat(jdbc.sql("""
                select count(*) from job_event e join job j on j.id = e.job_id
                 where e.kind = 'PUSHED' and e.worker_id = j.worker_id and j.status = 'PUSHED'
                """).query(Long.class).single()).as("each recorded as its pusher's").isEqualTo(2);
    }

    /** A retried failure clears the job's worker; its RETRYING event is still the worker's whose failure it was. */
    @Test
    void aRetriedFailureInABatchIsRecordedAsItsPushers() {
        workerServingEcho(Map.of());
        UUID retried = createJob(echo, Map.of("retryPolicy", Map.of("maxAttempts", 3)));
        claim(worker, 1);
        String batch = Api.json(List.of(Map.of("ord", 0, "job_id", retried, "worker_id", worker, "attempt", 1,
                "outcome", "FAILURE", "error", Map.of("message", "boom"), "checked", false)));

        Map<Integer, JobView> pushed = store.pushBatch(List.of(worker), batch);

        assertThat(pushed.get(0).scheduled()).as("its policy runs it again").isTrue();
        assertThat(pushed.get(0).workerId()).isNull();
        assertThat(jdbc.sql("select worker_id from job_event where job_id = :id and kind = 'RETRYING'")
                .param("id", retried).query(UUID.class).single()).as("the worker whose failure it was").isEqualTo(worker);
    }

    @Test
    void aPushFindsItsJobByPrimaryKey() throws SQLException {
        workerServingEcho(Map.of());
        UUID holder = TestRows.jobsInEveryState(jdbc, echo, 1000);
        MapSqlParameterSource push = new MapSqlParameterSource("jobId", UUID.randomUUID()).addValue("workerId", holder)
                .addValue("attempt", 1).addValue("outcome", "SUCCESS").addValue("result", RESULT)
                .addValue("acquires", null).addValue("dbUpdates", null).addValue("error", null)
                .addValue("resultChecked", false);

        QueryPlan.of(dataSource, PushStore.JOB_PUSH, push).assertProbes("job_pkey");
        QueryPlan.of(dataSource, PushStore.JOB_PUSH_VERDICT, push).assertProbes("job_pkey");
    }

    /** A batch reads the live claims of its worker (about its concurrency) and matches them to the batch. */
    @Test
    void aBatchFindsItsWorkersClaimsOnTheWorkersIndex() throws SQLException {
        workerServingEcho(Map.of());
        UUID holder = TestRows.jobsInEveryState(jdbc, echo, 1000);

        QueryPlan.of(dataSource, PushStore.JOB_PUSH_BATCH, new MapSqlParameterSource("workerIds", "{" + holder + "}")
                        .addValue("pushes", Api.json(List.of(batchItem(0, UUID.randomUUID(), holder, 1)))))
                .assertProbes("job_by_worker");
    }

    private static PushStore.Push success(UUID job, UUID workerId, Integer attempt) {
        return new PushStore.Push(job, workerId, attempt, PushStatus.SUCCESS, RESULT, null, null, null);
    }

    private static PushStore.Push failure(UUID job, UUID workerId) {
        return new PushStore.Push(job, workerId, 1, PushStatus.FAILURE, null, null, null, "\"boom\"");
    }

    /** One item of the batch statement's input, as PushService writes it. */
    private static Map<String, Object> batchItem(int ord, UUID job, UUID worker, int attempt) {
        return Map.of("ord", ord, "job_id", job, "worker_id", worker, "attempt", attempt, "outcome", "SUCCESS", "result", Map.of("ok", true),
                "checked", false);
    }

    private long pushedEvents(UUID job) {
        return jdbc.sql("select count(*) from job_event where job_id = :id and kind = 'PUSHED'").param("id", job)
                .query(Long.class).single();
    }
}
