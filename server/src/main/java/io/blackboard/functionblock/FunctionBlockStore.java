package io.blackboard.functionblock;

import io.blackboard.platform.sql.SqlArrays;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Component;

/** All SQL of function_block and worker_function_block. */
@Component
class FunctionBlockStore {

    static final String FUNCTION_BLOCK_INSERT = """
            insert into function_block
                   (id, name, version, params_json_schema, result_data_json_schema, pure, idempotent, description,
                    retry_policy, execution_timeout_ms)
            values (:id, :name, :version, cast(:params as jsonb), cast(:result as jsonb), :pure, :idempotent,
                    :description, cast(:retryPolicy as jsonb), cast(:executionTimeoutMs as bigint))
            on conflict (name, version) do nothing
            returning id
            """;

    /** The existing block of that name and version, and whether its contract equals the one offered. */
    static final String FUNCTION_BLOCK_COMPARE = """
            select id,
                   params_json_schema is not distinct from cast(:params as jsonb)
                   and result_data_json_schema is not distinct from cast(:result as jsonb)
                   and pure = :pure and idempotent = :idempotent
                   and retry_policy is not distinct from cast(:retryPolicy as jsonb)
                   and execution_timeout_ms is not distinct from cast(:executionTimeoutMs as bigint) as same
              from function_block
             where name = :name and version = :version
            """;

    /** Serializes registrations of one worker, and proves it is registered and not deleted. */
    static final String WORKER_LOCK = """
            select id from worker where id = :workerId and deleted_at is null for update
            """;

    static final String WORKER_FUNCTION_BLOCK_PRUNE = """
            delete from worker_function_block
             where worker_id = :workerId and not (function_block_id = any (cast(:ids as uuid[])))
            """;

    static final String WORKER_FUNCTION_BLOCK_ADD = """
            insert into worker_function_block (worker_id, function_block_id)
            select :workerId, unnest(cast(:ids as uuid[]))
            on conflict do nothing
            """;

    static final String FUNCTION_BLOCK_COLUMNS = """
            fb.id, fb.name, fb.version, fb.params_json_schema::text as params_json_schema,
            fb.result_data_json_schema::text as result_data_json_schema, fb.pure, fb.idempotent,
            fb.description, fb.created_at, fb.retry_policy::text as retry_policy, fb.execution_timeout_ms
            """;

    static final String FUNCTION_BLOCK_FIND = "select " + FUNCTION_BLOCK_COLUMNS + """
              from function_block fb where fb.id = :id
            """;

    /** Every version of these names (a JSON array), newest registered first. */
    static final String FUNCTION_BLOCK_VERSIONS = """
            select id, name, version from function_block
             where name in (select jsonb_array_elements_text(cast(:names as jsonb)))
             order by created_at desc, id desc
            """;

    static final String FUNCTION_BLOCK_BY_WORKER = "select " + FUNCTION_BLOCK_COLUMNS + """
              from function_block fb
              join worker_function_block wfb on wfb.function_block_id = fb.id
             where wfb.worker_id = :workerId
             order by fb.name, fb.version
            """;

    /**
     * How many PENDING jobs at the head of a block's queue (claim order) the catalog checks for
     * a selector no runnable worker matches. A stranded job rises to the head as the jobs
     * behind it in FIFO order are claimed, so a bounded look finds it without a full scan.
     */
    static final int ROUTING_WINDOW = 1000;

    /**
     * The catalog: every block with its queue. Counts come from one grouped pass over the
     * PENDING partial index and one over the (few) POLLED jobs on the deadline index (which only a
     * query naming the deadline can use; every POLLED job has one). A block is unroutable when a job
     * at the head of its queue matches no worker that could be handed it now: ONLINE, RUN, not
     * deleted, registered for the block, labels containing the job's selector.
     */
    static final String FUNCTION_BLOCK_CATALOG = """
            with pending as (
                select function_block_id, count(*) as jobs, min(created_at) as oldest
                  from job where status = 'PENDING' group by function_block_id),
            polled as (
                select function_block_id, count(*) as jobs
                  from job where status = 'POLLED' and deadline is not null group by function_block_id),
            scheduled as (
                select function_block_id, count(*) as jobs
                  from job where status = 'SCHEDULED' group by function_block_id),
            parked as (
                select function_block_id, count(*) as jobs
                  from job where status = 'PARKED' group by function_block_id),
            runnable as (
                select wfb.function_block_id, w.labels
                  from worker w join worker_function_block wfb on wfb.worker_id = w.id
                 where w.state = 'ONLINE' and w.directive = 'RUN' and w.deleted_at is null)
            select fb.id, fb.name, fb.version, fb.pure, fb.idempotent, fb.description,
                   (select count(*) from worker_function_block wfb join worker w on w.id = wfb.worker_id
                     where wfb.function_block_id = fb.id and w.state = 'ONLINE' and w.deleted_at is null)
                       as online_workers,
                   coalesce(p.jobs, 0) as pending, coalesce(q.jobs, 0) as polled, coalesce(s.jobs, 0) as scheduled,
                   coalesce(d.jobs, 0) as parked,
                   cast(extract(epoch from now() - p.oldest) * 1000 as bigint) as oldest_pending_age_ms,
                   p.jobs is not null and exists (
                       select 1
                         from (select j.selector from job j
                                where j.function_block_id = fb.id and j.status = 'PENDING'
                                order by j.priority desc, j.created_at, j.id
                                limit :window) head
                        where not exists (select 1 from runnable r
                                           where r.function_block_id = fb.id and head.selector <@ r.labels))
                       as unroutable
              from function_block fb
              left join pending p on p.function_block_id = fb.id
              left join polled q on q.function_block_id = fb.id
              left join scheduled s on s.function_block_id = fb.id
              left join parked d on d.function_block_id = fb.id
             order by fb.name, fb.version
            """;

    private final JdbcClient jdbc;

    FunctionBlockStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** The id of a newly inserted block, or empty when that (name, version) already exists. */
    Optional<UUID> insert(UUID id, FunctionBlockSpec spec, @Nullable String params, @Nullable String result,
            @Nullable String retryPolicy) {
        return jdbc.sql(FUNCTION_BLOCK_INSERT).param("retryPolicy", retryPolicy)
                .param("executionTimeoutMs", spec.executionTimeoutMs())
                .param("id", id).param("name", spec.name()).param("version", spec.version())
                .param("params", params).param("result", result)
                .param("pure", spec.isPure()).param("idempotent", spec.isIdempotent())
                .param("description", spec.description())
                .query(UUID.class).optional();
    }

    record Comparison(UUID id, boolean same) {
    }

    Comparison compare(FunctionBlockSpec spec, @Nullable String params, @Nullable String result,
            @Nullable String retryPolicy) {
        return jdbc.sql(FUNCTION_BLOCK_COMPARE).param("retryPolicy", retryPolicy)
                .param("executionTimeoutMs", spec.executionTimeoutMs())
                .param("name", spec.name()).param("version", spec.version())
                .param("params", params).param("result", result)
                .param("pure", spec.isPure()).param("idempotent", spec.isIdempotent())
                .query((rs, n) -> new Comparison(rs.getObject("id", UUID.class), rs.getBoolean("same")))
                .single();
    }

    boolean lockWorker(UUID workerId) {
        return jdbc.sql(WORKER_LOCK).param("workerId", workerId).query(UUID.class).optional().isPresent();
    }

    void replaceWorkerSet(UUID workerId, Collection<UUID> ids) {
        String array = SqlArrays.uuids(ids);
        jdbc.sql(WORKER_FUNCTION_BLOCK_PRUNE).param("workerId", workerId).param("ids", array).update();
        jdbc.sql(WORKER_FUNCTION_BLOCK_ADD).param("workerId", workerId).param("ids", array).update();
    }

    Optional<FunctionBlockView> find(UUID id) {
        return jdbc.sql(FUNCTION_BLOCK_FIND).param("id", id).query(FunctionBlockStore::view).optional();
    }

    List<BlockVersion> versions(String namesJson) {
        return jdbc.sql(FUNCTION_BLOCK_VERSIONS).param("names", namesJson)
                .query((rs, n) -> new BlockVersion(rs.getObject("id", UUID.class), rs.getString("name"),
                        rs.getString("version")))
                .list();
    }

    List<FunctionBlockView> findByWorker(UUID workerId) {
        return jdbc.sql(FUNCTION_BLOCK_BY_WORKER).param("workerId", workerId).query(FunctionBlockStore::view).list();
    }

    List<CatalogEntry> catalog() {
        return jdbc.sql(FUNCTION_BLOCK_CATALOG).param("window", ROUTING_WINDOW).query((rs, n) -> new CatalogEntry(
                rs.getObject("id", UUID.class), rs.getString("name"), rs.getString("version"),
                rs.getBoolean("pure"), rs.getBoolean("idempotent"), rs.getString("description"),
                rs.getLong("online_workers"), rs.getLong("pending"), rs.getLong("polled"),
                rs.getObject("oldest_pending_age_ms", Long.class), rs.getBoolean("unroutable"),
                rs.getLong("scheduled"), rs.getLong("parked"))).list();
    }

    private static FunctionBlockView view(ResultSet rs, int n) throws SQLException {
        return new FunctionBlockView(rs.getObject("id", UUID.class), rs.getString("name"), rs.getString("version"),
                rs.getString("params_json_schema"), rs.getString("result_data_json_schema"),
                rs.getBoolean("pure"), rs.getBoolean("idempotent"), rs.getString("description"),
                rs.getObject("created_at", OffsetDateTime.class), rs.getString("retry_policy"),
                rs.getObject("execution_timeout_ms", Long.class));
    }
}
