package io.blackboard.worker;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Reading a worker's history and reaping it after the retention. The events are written by the
 * statements that make the changes, in {@link WorkerStore}.
 */
@Component
class WorkerEventStore {

    /** One worker's events after a cursor, oldest first: a range of {@code worker_event_by_worker}. */
    static final String WORKER_EVENTS_AFTER = """
            select id, kind, state, from_state, directive, from_directive, related_worker_id, actor, detail, at
              from worker_event
             where worker_id = :workerId and id > :afterId
             order by id
             limit :limit
            """;

    /**
     * Events older than the retention, oldest first, a bounded batch. Rows another replica's
     * reaper holds are skipped.
     */
    static final String WORKER_EVENTS_REAP = """
            with expired as materialized (
                select id from worker_event
                 where at < now() - :retentionMs * interval '1 millisecond'
                 order by at
                 limit :batch
                   for update skip locked)
            delete from worker_event e using expired where e.id = expired.id
            """;

    private final JdbcClient jdbc;

    WorkerEventStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    List<WorkerEvent> after(UUID workerId, long afterId, int limit) {
        return jdbc.sql(WORKER_EVENTS_AFTER).param("workerId", workerId).param("afterId", afterId)
                .param("limit", limit).query(WorkerEventStore::event).list();
    }

    int reap(Duration retention, int batch) {
        return jdbc.sql(WORKER_EVENTS_REAP).param("retentionMs", retention.toMillis()).param("batch", batch).update();
    }

    private static WorkerEvent event(ResultSet rs, int n) throws SQLException {
        String fromState = rs.getString("from_state");
        String fromDirective = rs.getString("from_directive");
        return new WorkerEvent(rs.getLong("id"), WorkerEventKind.valueOf(rs.getString("kind")),
                WorkerState.valueOf(rs.getString("state")), fromState == null ? null : WorkerState.valueOf(fromState),
                Directive.valueOf(rs.getString("directive")),
                fromDirective == null ? null : Directive.valueOf(fromDirective),
                rs.getObject("related_worker_id", UUID.class), rs.getString("actor"), rs.getString("detail"),
                rs.getObject("at", OffsetDateTime.class));
    }
}
