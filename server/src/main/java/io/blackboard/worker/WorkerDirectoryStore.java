package io.blackboard.worker;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Component;

/** The registry's reads behind {@link WorkerDirectory} and the token check: nothing here writes. */
@Component
class WorkerDirectoryStore {

    /**
     * Deaf workers: ONLINE with directive RUN and room under their concurrency, pinging but not
     * polling (nor back ONLINE) for the threshold, while a PENDING job they could take waits at
     * the head of a queue they serve (the same bounded look as the catalog's routing check).
     * {@code :id} null means every worker.
     */
    static final String WORKER_DEAF = """
            with silent as materialized (
                select w.id, w.labels from worker w
                 where w.deleted_at is null and w.state = 'ONLINE' and w.directive = 'RUN'
                   and (cast(:id as uuid) is null or w.id = :id)
                   and greatest(coalesce(w.last_polled_at, w.registered_at), w.state_changed_at)
                       < now() - :deafAfterMs * interval '1 millisecond'
                   and (select count(*) from job h where h.worker_id = w.id and h.status = 'POLLED') < w.concurrency)
            select s.id from silent s
             cross join lateral (
                 -- a LIMIT keeps this a nested loop that stops at the first job the worker could take
                 select 1 from worker_function_block wfb
                  cross join lateral (
                      select j.selector from job j
                       where j.function_block_id = wfb.function_block_id and j.status = 'PENDING'
                       order by j.priority desc, j.created_at, j.id
                       limit :window) head
                  where wfb.worker_id = s.id and head.selector <@ s.labels
                  limit 1) takeable
            """;

    /** Live (not deleted) workers by state. */
    static final String WORKER_COUNT_BY_STATE = """
            select state, count(*) as workers from worker where deleted_at is null group by state
            """;

    private static final String WORKER_SELECT = """
            select w.id, w.name, w.hostname, w.ip, w.pid, w.version, w.sdk_name, w.sdk_version,
                   w.labels::text as labels, w.concurrency, w.state, w.directive, w.registered_at, w.last_seen_at,
                   w.state_changed_at, w.last_polled_at, w.deleted_at,
                   (select count(*) from job j where j.worker_id = w.id and j.status = 'POLLED') as held_jobs
              from worker w
            """;

    static final String WORKER_FIND = WORKER_SELECT + " where w.id = :id";

    /**
     * Workers in registration order after a position (none: from the first), at most {@code :limit};
     * {@code :state} null means any state. Read in the order of {@code worker_registered}.
     */
    static final String WORKER_LIST = WORKER_SELECT + """
             where (:includeDeleted or w.deleted_at is null)
               and (cast(:state as text) is null or w.state = :state)
               and (cast(:afterRegisteredAt as timestamptz) is null
                    or (w.registered_at, w.id) > (cast(:afterRegisteredAt as timestamptz), cast(:afterId as uuid)))
             order by w.registered_at, w.id
             limit :limit
            """;

    /** The worker a token was issued to, deleted or not, by the token's SHA-256 (the only form stored). */
    static final String WORKER_BY_TOKEN = "select id from worker where token_hash = :hash";

    /** Whether the worker is live (true), deleted (false) or was never registered (no row). */
    static final String WORKER_LIVE = "select deleted_at is null from worker where id = :id";

    /** PENDING jobs at the head of each queue that the deafness check looks at. */
    static final int DEAF_WINDOW = 1000;

    private final JdbcClient jdbc;

    WorkerDirectoryStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    Set<UUID> deaf(@Nullable UUID id, Duration deafAfter) {
        return Set.copyOf(jdbc.sql(WORKER_DEAF).param("id", id).param("deafAfterMs", deafAfter.toMillis())
                .param("window", DEAF_WINDOW).query(UUID.class).list());
    }

    Map<WorkerState, Long> countByState() {
        Map<WorkerState, Long> counts = new EnumMap<>(WorkerState.class);
        for (WorkerState state : WorkerState.values()) {
            counts.put(state, 0L);
        }
        jdbc.sql(WORKER_COUNT_BY_STATE).query((rs, n) -> counts.put(WorkerState.valueOf(rs.getString("state")),
                rs.getLong("workers"))).list();
        return counts;
    }

    Optional<WorkerRow> find(UUID id) {
        return jdbc.sql(WORKER_FIND).param("id", id).query(WorkerDirectoryStore::row).optional();
    }

    List<WorkerRow> list(boolean includeDeleted, @Nullable WorkerState state,
            @Nullable OffsetDateTime afterRegisteredAt, @Nullable UUID afterId, int limit) {
        return jdbc.sql(WORKER_LIST).param("includeDeleted", includeDeleted)
                .param("state", state == null ? null : state.name()).param("afterRegisteredAt", afterRegisteredAt)
                .param("afterId", afterId).param("limit", limit).query(WorkerDirectoryStore::row).list();
    }

    Optional<UUID> byTokenHash(byte[] hash) {
        return jdbc.sql(WORKER_BY_TOKEN).param("hash", hash).query(UUID.class).optional();
    }

    /** True: registered and live; false: deleted; empty: never registered. */
    Optional<Boolean> live(UUID id) {
        return jdbc.sql(WORKER_LIVE).param("id", id).query(Boolean.class).optional();
    }

    private static WorkerRow row(ResultSet rs, int n) throws SQLException {
        return new WorkerRow(rs.getObject("id", UUID.class), rs.getString("name"), rs.getString("hostname"),
                rs.getString("ip"), rs.getObject("pid", Integer.class), rs.getString("version"),
                rs.getString("sdk_name"), rs.getString("sdk_version"), rs.getString("labels"),
                rs.getInt("concurrency"), WorkerState.valueOf(rs.getString("state")),
                Directive.valueOf(rs.getString("directive")), rs.getObject("registered_at", OffsetDateTime.class),
                rs.getObject("last_seen_at", OffsetDateTime.class),
                rs.getObject("state_changed_at", OffsetDateTime.class),
                rs.getObject("last_polled_at", OffsetDateTime.class),
                rs.getObject("deleted_at", OffsetDateTime.class), rs.getLong("held_jobs"));
    }
}
