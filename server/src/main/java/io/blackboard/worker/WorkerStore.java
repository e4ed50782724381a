package io.blackboard.worker;

import io.blackboard.platform.sql.SqlArrays;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Every write to the worker table, one guarded statement each on the database clock. The reads
 * are {@link WorkerDirectoryStore}'s.
 */
@Component
class WorkerStore {

    static final String WORKER_INSERT = """
            insert into worker (id, name, hostname, ip, pid, version, sdk_name, sdk_version, labels, concurrency,
                                token_hash)
            values (:id, :name, :hostname, :ip, :pid, :version, :sdkName, :sdkVersion, cast(:labels as jsonb),
                    :concurrency, :tokenHash)
            """;

    /**
     * A heartbeat: HOT-updatable (no index covers last_seen_at), back to ONLINE from anywhere,
     * and committed without waiting for its WAL to reach disk ({@code synchronous_commit} off for
     * its own transaction, which the caller's lease work shares). At 20,000 workers that is 1,000
     * commits a second that would each wait for a flush, and queue behind every other commit's.
     * Everything a ping writes is safe to lose and redo: that the worker was seen and is ONLINE,
     * the extended deadlines of the jobs it lists, and the release of claims it does not know
     * (back to PENDING, no attempt spent). A PostgreSQL crash loses at most the last ~0.6 s of
     * pings (three wal_writer_delay rounds), which the workers repeat within a ping interval; a
     * transaction that read a ping's writes and then wrote (a claim of a released job, say) made
     * them durable too, since the WAL is flushed in order.
     */
    static final String WORKER_PING = heartbeat("worker.id = :id");

    /**
     * The heartbeats of many workers in one statement and one commit: the idle pings that
     * arrive together ({@link WorkerService#ping}). One probe of the primary key finds them in
     * its order, so two such statements lock the rows they share in the same order.
     */
    static final String WORKER_PINGS = heartbeat("worker.id = any (cast(:ids as uuid[]))");

    private static String heartbeat(String which) {
        return """
                update worker
                   set last_seen_at = now(),
                       state_changed_at = case when state = 'ONLINE' then state_changed_at else now() end,
                       state = 'ONLINE'
                  from (select set_config('synchronous_commit', 'off', true)) as async_commit
                 where %s and deleted_at is null
                returning worker.id, state, directive, now() as server_time,
                          exists (select 1 from job j where j.worker_id = worker.id and j.status = 'POLLED') as holds_claims
                """.formatted(which);
    }

    /**
     * Going OFFLINE, written once for the three ways a worker goes (unregister, delete, silence):
     * the state, and since when (kept if it already was). The caller takes back its held jobs in
     * the same transaction ({@link WorkerService}).
     */
    private static final String SET_OFFLINE =
            "state_changed_at = case when state = 'OFFLINE' then state_changed_at else now() end, state = 'OFFLINE'";

    static final String WORKER_GO_OFFLINE = """
            update worker set %s
             where id = :id and deleted_at is null
            returning id
            """.formatted(SET_OFFLINE);

    static final String WORKER_SOFT_DELETE = """
            update worker set %s, deleted_at = now()
             where id = :id and deleted_at is null
            returning id
            """.formatted(SET_OFFLINE);

    static final String WORKER_SET_DIRECTIVE = """
            update worker set directive = :directive
             where id = :id and deleted_at is null
            returning id
            """;

    /**
     * The function blocks this worker serves that have PENDING jobs and no other ONLINE worker
     * with the RUN directive serving them: quieting it would strand that work.
     */
    static final String WORKER_STRANDED_BLOCKS = """
            select fb.name || '@' || fb.version as block,
                   (select count(*) from job j where j.function_block_id = fb.id and j.status = 'PENDING') as pending
              from worker_function_block mine
              join function_block fb on fb.id = mine.function_block_id
             where mine.worker_id = :id
               and exists (select 1 from job j where j.function_block_id = fb.id and j.status = 'PENDING')
               and not exists (
                   select 1 from worker_function_block other join worker w on w.id = other.worker_id
                    where other.function_block_id = fb.id and w.id <> :id
                      and w.state = 'ONLINE' and w.directive = 'RUN' and w.deleted_at is null)
             order by fb.name, fb.version
            """;

    /** Silent past the offline threshold: OFFLINE, in bounded batches; the caller fails their jobs. */
    static final String WORKER_MARK_OFFLINE = """
            with due as materialized (
                select id from worker
                 where deleted_at is null and state <> 'OFFLINE'
                   and last_seen_at < now() - :thresholdMs * interval '1 millisecond'
                 order by last_seen_at
                 limit :batch
                   for update skip locked)
            update worker w set %s
              from due
             where w.id = due.id
               and w.deleted_at is null and w.state <> 'OFFLINE'
               and w.last_seen_at < now() - :thresholdMs * interval '1 millisecond'
            returning w.id
            """.formatted(SET_OFFLINE);

    /**
     * Silent past the unreachable threshold. Rows another replica's sweep has locked are
     * skipped, not waited for: two sweeps scanning from different places in the table would
     * otherwise lock rows in opposite orders and deadlock.
     */
    static final String WORKER_MARK_UNREACHABLE = """
            with due as materialized (
                select id from worker
                 where deleted_at is null and state = 'ONLINE'
                   and last_seen_at < now() - :thresholdMs * interval '1 millisecond'
                 order by last_seen_at
                 limit :batch
                   for update skip locked)
            update worker w
               set state = 'UNREACHABLE', state_changed_at = now()
              from due
             where w.id = due.id and w.deleted_at is null and w.state = 'ONLINE'
               and w.last_seen_at < now() - :thresholdMs * interval '1 millisecond'
            returning w.id
            """;

    /** OFFLINE for at least the threshold (zero: every OFFLINE worker): soft-deleted. */
    static final String WORKER_DELETE_OFFLINE = """
            with due as materialized (
                select id from worker
                 where deleted_at is null and state = 'OFFLINE'
                   and state_changed_at <= now() - :thresholdMs * interval '1 millisecond'
                 limit :batch
                   for update skip locked)
            update worker w
               set deleted_at = now()
              from due
             where w.id = due.id
               and w.deleted_at is null and w.state = 'OFFLINE'
               and w.state_changed_at <= now() - :thresholdMs * interval '1 millisecond'
            returning w.id
            """;

    private final JdbcClient jdbc;

    WorkerStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    void insert(UUID id, RegisterWorker request, String labelsJson, byte[] tokenHash) {
        jdbc.sql(WORKER_INSERT)
                .param("id", id)
                .param("name", request.name())
                .param("hostname", request.hostname())
                .param("ip", request.ip())
                .param("pid", request.pid())
                .param("version", request.version())
                .param("sdkName", request.sdkName())
                .param("sdkVersion", request.sdkVersion())
                .param("labels", labelsJson)
                .param("concurrency", request.concurrencyOrDefault())
                .param("tokenHash", tokenHash)
                .update();
    }

    /**
     * What a ping's update returns. {@code holdsClaims}: the worker held a POLLED job in the
     * update's snapshot. A claim committed after it is not yet past the orphan grace period
     * (with a grace of 0, the worker's next idle ping releases it).
     */
    record Heartbeat(WorkerState state, Directive directive, OffsetDateTime serverTime, boolean holdsClaims) {
    }

    /** A heartbeat, committed asynchronously ({@link #WORKER_PING}). */
    Optional<Heartbeat> ping(UUID id) {
        return jdbc.sql(WORKER_PING).param("id", id).query(WorkerStore::beat).optional();
    }

    /** Each worker's heartbeat, in the order asked (empty for one unknown or deleted); one statement. */
    List<Optional<Heartbeat>> ping(List<UUID> ids) {
        Map<UUID, Heartbeat> beats = new HashMap<>();
        jdbc.sql(WORKER_PINGS).param("ids", SqlArrays.uuids(new HashSet<>(ids)))
                .query((rs, n) -> beats.put(rs.getObject("id", UUID.class), beat(rs, n)))
                .list();
        return ids.stream().map(id -> Optional.ofNullable(beats.get(id))).toList();
    }

    private static Heartbeat beat(ResultSet rs, int row) throws SQLException {
        return new Heartbeat(WorkerState.valueOf(rs.getString("state")), Directive.valueOf(rs.getString("directive")),
                rs.getObject("server_time", OffsetDateTime.class), rs.getBoolean("holds_claims"));
    }

    boolean goOffline(UUID id) {
        return jdbc.sql(WORKER_GO_OFFLINE).param("id", id).query(UUID.class).optional().isPresent();
    }

    boolean softDelete(UUID id) {
        return jdbc.sql(WORKER_SOFT_DELETE).param("id", id).query(UUID.class).optional().isPresent();
    }

    boolean setDirective(UUID id, Directive directive) {
        return jdbc.sql(WORKER_SET_DIRECTIVE).param("id", id).param("directive", directive.name())
                .query(UUID.class).optional().isPresent();
    }

    List<String> strandedBlocks(UUID id) {
        return jdbc.sql(WORKER_STRANDED_BLOCKS).param("id", id)
                .query((rs, n) -> "%s has %d PENDING jobs and no other ONLINE worker with directive RUN"
                        .formatted(rs.getString("block"), rs.getLong("pending")))
                .list();
    }

    List<UUID> markOffline(Duration threshold, int batch) {
        return jdbc.sql(WORKER_MARK_OFFLINE).param("thresholdMs", threshold.toMillis()).param("batch", batch)
                .query(UUID.class).list();
    }

    List<UUID> markUnreachable(Duration threshold, int batch) {
        return jdbc.sql(WORKER_MARK_UNREACHABLE).param("thresholdMs", threshold.toMillis()).param("batch", batch)
                .query(UUID.class).list();
    }

    List<UUID> deleteOffline(Duration offlineFor, int batch) {
        return jdbc.sql(WORKER_DELETE_OFFLINE).param("thresholdMs", offlineFor.toMillis()).param("batch", batch)
                .query(UUID.class).list();
    }
}
