package io.blackboard.operator;

import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Component;

/** The read-only queries behind the dashboard's views that no feature answers on its own. */
@Component
class OperatorStore {

    /** Who serves what, by name: one row per registration. */
    static final String WORKER_FUNCTION_BLOCKS = """
            select wfb.worker_id, fb.id, fb.name, fb.version
              from worker_function_block wfb join function_block fb on fb.id = wfb.function_block_id
             order by fb.name, fb.version
            """;

    /** The latest failures, newest first, on the partial index of FAILURE jobs by push time. */
    static final String JOB_FAILURES_RECENT = """
            select j.id, j.function_block_id, fb.name as function_block, fb.version, j.type, j.attempt,
                   j.max_attempts, j.worker_id, w.name as worker_name, j.failure_reason, j.error::text as error,
                   j.correlation_id, j.created_at, j.polled_at, j.pushed_at
              from job j
              join function_block fb on fb.id = j.function_block_id
              left join worker w on w.id = j.worker_id
             where j.outcome = 'FAILURE' and j.status = 'PUSHED'
               and (cast(:reason as text) is null or j.failure_reason = :reason)
               and (cast(:functionBlockId as uuid) is null or j.function_block_id = :functionBlockId)
             order by j.pushed_at desc, j.id desc
             limit :limit
            """;

    /**
     * Jobs held now, the nearest deadline first, on the deadline index of POLLED jobs (which only a
     * query naming the deadline can use; every POLLED job has one).
     */
    static final String JOB_RUNNING = """
            select j.id, j.function_block_id, fb.name as function_block, fb.version, j.attempt, j.worker_id,
                   w.name as worker_name, j.polled_at, j.deadline, j.progress_percent, j.progress_message,
                   j.progress_at
              from job j
              join function_block fb on fb.id = j.function_block_id
              left join worker w on w.id = j.worker_id
             where j.status = 'POLLED' and j.deadline is not null
             order by j.deadline, j.id
             limit :limit
            """;

    private final JdbcClient jdbc;

    OperatorStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    private record Registration(UUID workerId, FunctionBlockRef block) {
    }

    Map<UUID, List<FunctionBlockRef>> functionBlocksByWorker() {
        return jdbc.sql(WORKER_FUNCTION_BLOCKS)
                .query((rs, n) -> new Registration(rs.getObject("worker_id", UUID.class),
                        new FunctionBlockRef(rs.getObject("id", UUID.class), rs.getString("name"),
                                rs.getString("version"))))
                .list().stream()
                .collect(Collectors.groupingBy(Registration::workerId, LinkedHashMap::new,
                        Collectors.mapping(Registration::block, Collectors.toList())));
    }

    List<RunningJob> running(int limit) {
        return jdbc.sql(JOB_RUNNING).param("limit", limit)
                .query((rs, n) -> new RunningJob(rs.getObject("id", UUID.class),
                        rs.getObject("function_block_id", UUID.class), rs.getString("function_block"),
                        rs.getString("version"), rs.getInt("attempt"), rs.getObject("worker_id", UUID.class),
                        rs.getString("worker_name"), rs.getObject("polled_at", OffsetDateTime.class),
                        rs.getObject("deadline", OffsetDateTime.class), rs.getObject("progress_percent", Integer.class),
                        rs.getString("progress_message"), rs.getObject("progress_at", OffsetDateTime.class)))
                .list();
    }

    List<Failure> recentFailures(@Nullable String reason, @Nullable UUID functionBlockId, int limit) {
        return jdbc.sql(JOB_FAILURES_RECENT)
                .param("reason", reason).param("functionBlockId", functionBlockId).param("limit", limit)
                .query((rs, n) -> new Failure(rs.getObject("id", UUID.class),
                        rs.getObject("function_block_id", UUID.class), rs.getString("function_block"),
                        rs.getString("version"), rs.getString("type"), rs.getInt("attempt"),
                        rs.getInt("max_attempts"), rs.getObject("worker_id", UUID.class),
                        rs.getString("worker_name"), rs.getString("failure_reason"), rs.getString("error"),
                        rs.getString("correlation_id"), rs.getObject("created_at", OffsetDateTime.class),
                        rs.getObject("polled_at", OffsetDateTime.class),
                        rs.getObject("pushed_at", OffsetDateTime.class)))
                .list();
    }
}
