package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blackboard.QueryPlan;
import io.blackboard.TestRows;
import io.blackboard.functionblock.RetryPolicy;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The engine's job statements against the real database: a keyed create and a cancel each
 * change a job once and then find nothing; only keyed jobs have an entry of the key's unique
 * index; the idempotency look-up and the audit trail read their indexes.
 */
class JobStoreTest extends BlackboardTest {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    @Autowired
    JobStore store;

    @Autowired
    JobService jobs;

    @Autowired
    DataSource dataSource;

    @Test
    void aSecondCreateWithTheSameKeyInsertsNothingAndMatchesTheFirstJob() {
        workerServingEcho(Map.of());
        UUID id = UUID.randomUUID();
        assertThat(store.insert(keyedJob(id, 1), true)).extracting(JobView::id).containsExactly(id);
        String created = row(id);

        NewJob.Columns again = keyedJob(UUID.randomUUID(), 1);
        assertThat(store.insert(again, true)).isEmpty();
        assertThat(row(id)).isEqualTo(created);
        assertThat(count("job")).isEqualTo(1);
        assertThat(jobs.events(id, JobStore.FIRST_EVENT, 1000)).extracting(JobEvent::kind)
                .as("one CREATED event").containsExactly(EventKind.CREATED);
        assertThat(store.matchIdempotencyKeys(again)).containsExactly(new JobStore.KeyMatch(0, id, true));
        assertThat(store.matchIdempotencyKeys(keyedJob(UUID.randomUUID(), 2)))
                .containsExactly(new JobStore.KeyMatch(0, id, false));
        assertThat(store.matchIdempotencyKeys(NewJob.columns(MAPPER, List.of(job(UUID.randomUUID(), 1, null, null),
                job(UUID.randomUUID(), 1, "k", null))))).as("the keyed job is the second of the input")
                .containsExactly(new JobStore.KeyMatch(1, id, true));
    }

    @Test
    void aSecondCancelFindsNothingAndAPushedJobCannotBeCancelled() {
        workerServingEcho(Map.of());
        UUID pushed = createJob(echo, Map.of());
        claim(worker, 1);
        assertThat(push(pushed, worker, Map.of()).status()).isEqualTo(200);
        UUID cancelled = createJob(echo, Map.of());
        assertThat(store.cancel(cancelled)).isTrue();
        String rowCancelled = row(cancelled);
        String rowPushed = row(pushed);

        assertThat(store.cancel(cancelled)).isFalse();
        assertThat(store.cancel(pushed)).isFalse();
        assertThat(row(cancelled)).isEqualTo(rowCancelled);
        assertThat(row(pushed)).isEqualTo(rowPushed);
        assertThat(jobs.events(cancelled, JobStore.FIRST_EVENT, 1000)).extracting(JobEvent::kind)
                .containsExactly(EventKind.CREATED, EventKind.CANCELLED);
    }

    /**
     * Jobs without keys go in by a plain insert: {@code on conflict} would make each row a
     * speculative insertion (a lock and a second WAL record per row) although a keyless row
     * cannot conflict. That statement is the keyed one without its conflict clause, and inserts
     * every row with its CREATED event: none written for a job created PENDING (the job row is its
     * creation, read back as event 0 before every other), one with the time asked for a SCHEDULED
     * job (a retry moves its run_at).
     */
    @Test
    void keylessJobsGoInByAPlainInsertWithTheirEvents() {
        workerServingEcho(Map.of());
        assertThat(JobStore.JOB_INSERT).contains("on conflict (idempotency_key)");
        assertThat(JobStore.JOB_INSERT_KEYLESS).doesNotContain("on conflict")
                .isEqualTo(JobStore.JOB_INSERT.replaceAll("\\n\\s*on conflict [^\\n]*", ""));
        UUID first = UUID.randomUUID();
        UUID second = UUID.randomUUID();
        UUID scheduled = UUID.randomUUID();
        NewJob.Columns keyless = NewJob.columns(MAPPER, List.of(job(first, 1, null, null), job(second, 1, null, null),
                job(scheduled, 1, null, OffsetDateTime.parse("2100-01-01T00:00:00Z"))));

        assertThat(store.insert(keyless, false)).extracting(JobView::id).containsExactly(first, second, scheduled);
        assertThat(count("job")).isEqualTo(3);
        assertThat(jdbc.sql("select job_id from job_event where kind = 'CREATED'").query(UUID.class).list())
                .as("a CREATED row for the SCHEDULED job only").containsExactly(scheduled);
        for (UUID id : List.of(first, second)) {
            assertThat(jobs.events(id, JobStore.FIRST_EVENT, 1000)).singleElement().satisfies(created -> {
                assertThat(created.kind()).isEqualTo(EventKind.CREATED);
                assertThat(created.id()).isZero();
                assertThat(created.actor()).isEqualTo("engine");
                assertThat(created.at()).isEqualTo(jdbc.sql("select created_at from job where id = :id")
                        .param("id", id).query(OffsetDateTime.class).single());
            });
            assertThat(jobs.events(id, 0, 1000)).as("after event 0").isEmpty();
        }
        assertThat(jobs.events(scheduled, JobStore.FIRST_EVENT, 1000)).singleElement().satisfies(created -> {
            assertThat(created.kind()).isEqualTo(EventKind.CREATED);
            assertThat(created.id()).isPositive();
            assertThat(created.detail()).startsWith("runAt 2100-01-01");
        });
    }

    /**
     * A create's columns ({@link NewJob#columns}) land every field the engine gave and the
     * server settled, text with quotes and accents as it came. A create that gives none gets an
     * empty payload and selector and priority 0 (always written), and NULL for each field the
     * columns leave out (correlation id, key, retry policy, timeout).
     */
    @Test
    void theCreatesColumnsLandEveryFieldGivenAndDefaultTheOthers() {
        workerServingEcho(Map.of());
        JsonMapper mapper = MAPPER;
        RetryPolicy policy = new RetryPolicy(4, 10L, 2.0, 100L, 0.5, List.of("Fatal"), RetryPolicy.Exhausted.PARK);
        JsonNode payload = mapper.readTree("{\"h\u00e9llo\": \"w\u00f6rld \\\"q\\\"\", \"n\": [1, 2.5, null], \"o\": {}}");
        CreateJob everything = new CreateJob(echo, null, null, JobType.EXECUTE, payload, 7, null,
                Map.of("site", "a\"b", "rack", "r1"), "corr-1", "key-1",
                OffsetDateTime.parse("2100-01-02T03:04:05.123+02:00"), null, policy, 60_000L);
        CreateJob bare = new CreateJob(echo, null, null, JobType.ROLLBACK, null, null, null, null, null, null, null,
                5_000L, null, null);
        UUID full = UUID.randomUUID();
        UUID plain = UUID.randomUUID();

        Map<UUID, JobView> created = store.insert(NewJob.columns(mapper, List.of(
                new NewJob(full, everything, 4, policy, 60_000L, List.of(echo)),
                new NewJob(plain, bare, 1, null, null, null))), true)
                .stream().collect(Collectors.toMap(JobView::id, job -> job));

        assertThat(created).containsOnlyKeys(full, plain);
        JobView one = created.get(full);
        assertThat(mapper.readTree(one.payload())).isEqualTo(payload);
        assertThat(mapper.readTree(one.selector())).isEqualTo(mapper.valueToTree(Map.of("site", "a\"b", "rack", "r1")));
        assertThat(one.type()).isEqualTo(JobType.EXECUTE);
        assertThat(one.priority()).isEqualTo(7);
        assertThat(one.maxAttempts()).isEqualTo(4);
        assertThat(one.correlationId()).isEqualTo("corr-1");
        assertThat(one.idempotencyKey()).isEqualTo("key-1");
        assertThat(one.runAt()).isEqualTo(OffsetDateTime.parse("2100-01-02T03:04:05.123+02:00"));
        assertThat(one.scheduled()).isTrue();
        assertThat(mapper.readValue(one.retryPolicy(), RetryPolicy.class)).isEqualTo(policy);
        assertThat(one.executionTimeoutMs()).isEqualTo(60_000L);

        JobView other = created.get(plain);
        assertThat(other.payload()).isEqualTo("{}");
        assertThat(other.selector()).isEqualTo("{}");
        assertThat(other.type()).isEqualTo(JobType.ROLLBACK);
        assertThat(other.priority()).isZero();
        assertThat(other.maxAttempts()).isEqualTo(1);
        assertThat(other.correlationId()).isNull();
        assertThat(other.idempotencyKey()).isNull();
        assertThat(other.retryPolicy()).isNull();
        assertThat(other.executionTimeoutMs()).isNull();
        assertThat(other.scheduled()).as("5 s ahead, by its delay").isTrue();
        assertThat(Duration.between(other.createdAt(), other.runAt())).isEqualTo(Duration.ofSeconds(5));
    }

    /**
     * The key's unique index holds the keyed jobs only (a keyless job's insert, claim and push
     * write no entry of it), and still refuses a second job with a taken key on any path, not
     * only the create's {@code on conflict}.
     */
    @Test
    void onlyKeyedJobsHaveAnEntryOfTheKeysUniqueIndexAndATakenKeyIsRefused() {
        workerServingEcho(Map.of());
        UUID keyless = createJob(echo, Map.of());
        createJob(echo, Map.of());
        store.insert(keyedJob(UUID.randomUUID(), 1), true);

        assertThat(jdbc.sql("select pg_get_indexdef('job_idempotency_key'::regclass)").query(String.class).single())
                .isEqualTo("CREATE UNIQUE INDEX job_idempotency_key ON public.job USING btree (idempotency_key)"
                        + " WHERE (idempotency_key IS NOT NULL)");
        assertThat(count("job")).isEqualTo(3);
        assertThatThrownBy(() -> jdbc.sql("update job set idempotency_key = 'k' where id = :id").param("id", keyless)
                .update()).isInstanceOf(DuplicateKeyException.class);
        jdbc.sql("update job set idempotency_key = 'k2' where id = :id").param("id", keyless).update();
    }

    /**
     * The held jobs, listed or cancelled in bulk, are read on the deadline index of POLLED jobs,
     * which only a query naming the deadline can use: the statements say what is always true of
     * a POLLED job. Shown with the creation-order index (the list's other way in) dropped.
     */
    @Test
    void theHeldJobsListedOrCancelledAreReadOnTheDeadlineIndex() throws SQLException {
        workerServingEcho(Map.of());
        TestRows.jobsInEveryState(jdbc, echo, 1000);

        JobStore.Query list = JobStore.listQuery(new JobFilter(JobStatus.POLLED, null, null, null, null, null, null,
                null, null, null, null, null, null, null), 100);
        MapSqlParameterSource held = new MapSqlParameterSource("statuses", "{POLLED}").addValue("correlationId", null)
                .addValue("functionBlockId", null).addValue("workerId", null).addValue("batch", 100);
        for (QueryPlan plan : List.of(
                QueryPlan.settledWithout(dataSource, "job_created", list.sql(),
                        JobListPlanTest.arrayLiterals(list.params())),
                QueryPlan.settledWithout(dataSource, "job_created", JobStore.JOB_CANCEL_MATCHING_HELD, held),
                QueryPlan.settledWithout(dataSource, "job_created", JobStore.JOB_CANCEL_MATCHING_LEFT_HELD, held))) {
            assertThat(plan.indexes()).as(plan::toString).contains("job_deadline");
        }
    }

    /** A keyed create finds the jobs of its keys by the key's index; a job's audit trail is read by the job's. */
    @Test
    void aKeyedCreateAndAJobsEventsReadTheirIndexes() throws SQLException {
        workerServingEcho(Map.of());
        TestRows.jobsInEveryState(jdbc, echo, 1000);
        jdbc.sql("insert into job_event (job_id, kind, attempt, actor) select id, 'PROGRESS', 1, 'worker' from job, "
                + "generate_series(1, 3)").update();
        jdbc.sql("analyze job_event").update(); // the statistics of these events, not of an earlier test's

        QueryPlan.of(dataSource, JobStore.JOB_MATCH_IDEMPOTENCY_KEYS,
                new MapSqlParameterSource(keyedJob(UUID.randomUUID(), 1).params())).assertProbes("job_idempotency_key");
        QueryPlan.of(dataSource, JobStore.JOB_EVENTS, new MapSqlParameterSource("id", UUID.randomUUID())
                .addValue("after", JobStore.FIRST_EVENT).addValue("limit", 1000)).assertProbes("job_event_by_job");
    }

    /**
     * A page of a job's events reads that page of {@code job_event}, not every event of the job (a long job reports progress for hours), first page or later, in the plan for these
     * values and in the generic one a prepared statement may settle on.
     */
    @Test
    void aPageOfAJobsEventsReadsThatPageNotTheJobsEvents() throws SQLException {
        workerServingEcho(Map.of());
        UUID job = createJob(echo, Map.of());
        assertThat(claim(worker, 1)).containsExactly(job);
        TestRows.jobsInEveryState(jdbc, echo, 1000); // a thousand other jobs with a few events each
        jdbc.sql("""
                insert into job_event (job_id, kind, attempt, actor)
                select j.id, 'PROGRESS', 1, 'worker' from job j, generate_series(1, 5) n where j.id <> :id
                """).param("id", job).update();
        jdbc.sql("""
                insert into job_event (job_id, kind, attempt, worker_id, actor, detail)
                select :id, 'PROGRESS', 1, :worker, 'worker', 'step ' || n from generate_series(1, 5000) n
                """).param("id", job).param("worker", worker).update();
        jdbc.sql("analyze job_event").update();
        long middle = jdbc.sql("select id from job_event where job_id = :id and detail = 'step 2500'").param("id", job)
                .query(Long.class).single();
        for (long after : new long[] {JobStore.FIRST_EVENT, middle}) {
            MapSqlParameterSource page = new MapSqlParameterSource("id", job).addValue("after", after)
                    .addValue("limit", 11);
            assertThat(store.events(job, after, 11)).hasSize(11);
            for (QueryPlan plan : List.of(QueryPlan.analyze(dataSource, JobStore.JOB_EVENTS, page),
                    QueryPlan.analyzeGeneric(dataSource, JobStore.JOB_EVENTS, page))) {
                assertThat(plan.rowsFrom("job_event")).as(plan::toString).isLessThanOrEqualTo(11 + 1);
            }
        }
        assertThat(jobs.events(job, JobStore.FIRST_EVENT, 3)).extracting(JobEvent::kind)
                .containsExactly(EventKind.CREATED, EventKind.CLAIMED, EventKind.PROGRESS);
        assertThat(jobs.events(job, 0, 2)).extracting(JobEvent::kind)
                .containsExactly(EventKind.CLAIMED, EventKind.PROGRESS);
    }

    /** The insert's input for one job of echo with idempotency key "k", as JobService writes it. */
    private NewJob.Columns keyedJob(UUID id, int n) {
        return NewJob.columns(MAPPER, List.of(job(id, n, "k", null)));
    }

    /** One job of echo, with this key and run_at (none: null). */
    private NewJob job(UUID id, int n, String key, OffsetDateTime runAt) {
        return new NewJob(id, new CreateJob(echo, null, null, JobType.EXECUTE, MAPPER.valueToTree(Map.of("n", n)), 0,
                null, Map.of(), null, key, runAt, null, null, null), 1, null, null, null);
    }
}
