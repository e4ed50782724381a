package io.blackboard.operator;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The operator's search: one statement per form, each on its index (V17 and the keys): a job or a
 * worker by id, jobs of a correlation id, the latest failures of a reason, workers by name prefix
 * or by a label. Deleted workers are found too (their page keeps their history), after live ones.
 */
@Component
class SearchStore {

    private static final String JOB_HIT = """
            select j.id, j.function_block_id, fb.name as function_block, fb.version, j.type,
                   case when j.status = 'SCHEDULED' then 'PENDING' else j.status end as status,
                   j.outcome, j.failure_reason, j.attempt, j.worker_id, j.correlation_id, j.created_at, j.pushed_at
              from job j join function_block fb on fb.id = j.function_block_id
            """;

    private static final String WORKER_HIT = """
            select w.id, w.name, w.hostname, w.state, w.directive, w.labels::text as labels, w.registered_at,
                   w.last_seen_at, w.deleted_at
              from worker w
            """;

    /** One job by its primary key. */
    static final String JOB_SEARCH_ID = JOB_HIT + " where j.id = :id";

    /** A workflow run's jobs in creation order, on job_correlation. */
    static final String JOB_SEARCH_CORRELATION = JOB_HIT + """
             where j.correlation_id = :correlationId
             order by j.created_at, j.id
             limit :limit
            """;

    /** The latest failures of one reason, on job_failed_by_reason. */
    static final String JOB_SEARCH_FAILURE_REASON = JOB_HIT + """
             where j.outcome = 'FAILURE' and j.failure_reason = :reason
             order by j.pushed_at desc, j.id desc
             limit :limit
            """;

    /** One worker by its primary key, deleted or not. */
    static final String WORKER_SEARCH_ID = WORKER_HIT + " where w.id = :id";

    /** Names starting with a prefix, any case: a range of worker_name_lower ([from, to) in byte order). */
    static final String WORKER_SEARCH_NAME = WORKER_HIT + """
             where lower(w.name) ~>=~ :from and lower(w.name) ~<~ :to
             order by w.deleted_at is not null, lower(w.name), w.id
             limit :limit
            """;

    /** Workers whose labels contain the pair, on the GIN index worker_labels. */
    static final String WORKER_SEARCH_LABEL = WORKER_HIT + """
             where w.labels @> cast(:labels as jsonb)
             order by w.deleted_at is not null, lower(w.name), w.id
             limit :limit
            """;

    private final JdbcClient jdbc;

    SearchStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    List<SearchResult.JobHit> jobById(UUID id) {
        return jdbc.sql(JOB_SEARCH_ID).param("id", id).query(jobHit("id")).list();
    }

    List<SearchResult.JobHit> jobsByCorrelationId(String correlationId, int limit) {
        return jdbc.sql(JOB_SEARCH_CORRELATION).param("correlationId", correlationId).param("limit", limit)
                .query(jobHit("correlationId")).list();
    }

    List<SearchResult.JobHit> jobsFailedWith(String reason, int limit) {
        return jdbc.sql(JOB_SEARCH_FAILURE_REASON).param("reason", reason).param("limit", limit)
                .query(jobHit("failureReason")).list();
    }

    List<SearchResult.WorkerHit> workerById(UUID id) {
        return jdbc.sql(WORKER_SEARCH_ID).param("id", id).query(workerHit("id")).list();
    }

    List<SearchResult.WorkerHit> workersNamed(String from, String to, int limit) {
        return jdbc.sql(WORKER_SEARCH_NAME).param("from", from).param("to", to).param("limit", limit)
                .query(workerHit("name")).list();
    }

    /** {@code labels}: a JSON object, the pair looked for. */
    List<SearchResult.WorkerHit> workersLabelled(String labels, int limit) {
        return jdbc.sql(WORKER_SEARCH_LABEL).param("labels", labels).param("limit", limit)
                .query(workerHit("label")).list();
    }

    private static RowMapper<SearchResult.JobHit> jobHit(String matchedBy) {
        return (rs, n) -> new SearchResult.JobHit(rs.getObject("id", UUID.class),
                rs.getObject("function_block_id", UUID.class), rs.getString("function_block"),
                rs.getString("version"), rs.getString("type"), rs.getString("status"), rs.getString("outcome"),
                rs.getString("failure_reason"), rs.getInt("attempt"), rs.getObject("worker_id", UUID.class),
                rs.getString("correlation_id"), rs.getObject("created_at", OffsetDateTime.class),
                rs.getObject("pushed_at", OffsetDateTime.class), matchedBy);
    }

    private static RowMapper<SearchResult.WorkerHit> workerHit(String matchedBy) {
        return (rs, n) -> new SearchResult.WorkerHit(rs.getObject("id", UUID.class), rs.getString("name"),
                rs.getString("hostname"), rs.getString("state"), rs.getString("directive"), rs.getString("labels"),
                rs.getObject("registered_at", OffsetDateTime.class), rs.getObject("last_seen_at", OffsetDateTime.class),
                rs.getObject("deleted_at", OffsetDateTime.class), matchedBy);
    }
}
