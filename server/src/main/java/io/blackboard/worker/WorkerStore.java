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
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Component;

/**
 * Every write to the worker table, one guarded statement each on the database clock, and with
 * each change of a worker's state, directive or existence its event in {@code worker_event},
 * written by the same statement (the history: {@link WorkerEventStore}). Each such statement
 * holds the worker's row lock when it inserts the event, so one worker's events are numbered in
 * the order they commit. The reads are {@link WorkerDirectoryStore}'s.
 */
@Component
class WorkerStore {

    /**
     * A new worker and its REGISTERED event. With {@code :previousId}, the deleted worker it
     * replaces (the worker re-registering after the server forgot it) gets a REREGISTERED event
     * naming the new one; its row is locked for that, as every write of an event does.
     */
    static final String WORKER_REGISTER = """
            with registered as (
                insert into worker (id, name, hostname, ip, pid, version, sdk_name, sdk_version, labels, concurrency,
                                    token_hash)
                values (:id, :name, :hostname, :ip, :pid, :version, :sdkName, :sdkVersion, cast(:labels as jsonb),
                        :concurrency, :tokenHash)
                returning id, state, directive),
            replaced as materialized (
                select id, state, directive from worker
                 where id = cast(:previousId as uuid) and deleted_at is not null
                   for no key update),
            registered_event as (
                insert into worker_event (worker_id, kind, state, directive, related_worker_id, actor, detail)
                select id, 'REGISTERED', state, directive, cast(:previousId as uuid), :actor,
                       'replaces ' || cast(:previousId as text)
                  from registered),
            replaced_event as (
                insert into worker_event (worker_id, kind, state, directive, related_worker_id, actor, detail)
                select id, 'REREGISTERED', state, directive, :id, :actor, 'registered again as ' || cast(:id as text)
                  from replaced)
            select id from registered
            """;

    /**
     * A heartbeat of an ONLINE worker: HOT-updatable (no index covers last_seen_at), and
     * committed without waiting for its WAL to reach disk ({@code synchronous_commit} off for its
     * own transaction, which the caller's lease work shares). At 20,000 workers that is 1,000
     * commits a second that would each wait for a flush, and queue behind every other commit's.
     * Everything a ping writes is safe to lose and redo: that the worker was seen and is ONLINE,
     * the extended deadlines of the jobs it lists, and the release of claims it does not know
     * (back to PENDING, no attempt spent). A PostgreSQL crash loses at most the last ~0.6 s of
     * pings (three wal_writer_delay rounds), which the workers repeat within a ping interval; a
     * transaction that read a ping's writes and then wrote (a claim of a released job, say) made
     * them durable too, since the WAL is flushed in order.
     *
     * <p>A worker that is not ONLINE is not found here (its state is rechecked on the row's
     * latest version, so one the sweeper has just marked is not either): {@link #WORKER_REVIVE}
     * brings it back with its event. So the pings that change nothing, nearly all of them, write
     * no event, take no lock beyond their update and run the plan they always ran.
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
                   set last_seen_at = now()
                  from (select set_config('synchronous_commit', 'off', true)) as async_commit
                 where %s and state = 'ONLINE' and deleted_at is null
                returning worker.id, state, directive, now() as server_time,
                          exists (select 1 from job j where j.worker_id = worker.id and j.status = 'POLLED') as holds_claims
                """.formatted(which);
    }

    /**
     * A heartbeat from any state, for a worker {@link #WORKER_PING} did not find ONLINE: back to
     * ONLINE, with an ONLINE event naming the state it left. The row is locked first to read that
     * state as it is, not as the statement's snapshot saw it: a sweep that marked the worker a
     * moment ago is waited for and seen. Asynchronous like every heartbeat: a crash that loses
     * it loses its event with it, and the next ping does both again.
     */
    static final String WORKER_REVIVE = """
            with locked as materialized (
                select id, state as was from worker
                 where id = :id and deleted_at is null
                   for no key update),
            beat as (
                update worker w
                   set last_seen_at = now(),
                       state_changed_at = case when w.state = 'ONLINE' then w.state_changed_at else now() end,
                       state = 'ONLINE'
                  from locked, (select set_config('synchronous_commit', 'off', true)) as async_commit
                 where w.id = locked.id and w.deleted_at is null
                returning w.id, locked.was, w.state, w.directive, now() as server_time,
                          exists (select 1 from job j where j.worker_id = w.id and j.status = 'POLLED') as holds_claims),
            revived as (
                insert into worker_event (worker_id, kind, state, from_state, directive, actor, detail)
                select id, 'ONLINE', state, was, directive, 'worker', 'ping' from beat where was <> state)
            select id, state, directive, server_time, holds_claims from beat
            """;

    /**
     * Going OFFLINE, written once for the three ways a worker goes (unregister, delete, silence):
     * the state, and since when (kept if it already was). The caller takes back its held jobs in
     * the same transaction ({@link WorkerService}).
     */
    private static final String SET_OFFLINE =
            "state_changed_at = case when state = 'OFFLINE' then state_changed_at else now() end, state = 'OFFLINE'";

    /** The worker's row, locked, with what a change is about to replace ({@code :column}). */
    private static String locked(String column) {
        return """
                locked as materialized (
                    select id, %s as was from worker
                     where id = :id and deleted_at is null
                       for no key update)""".formatted(column);
    }

    /** Unregistered: OFFLINE, and an OFFLINE event unless it already was. */
    static final String WORKER_GO_OFFLINE = """
            with %s,
            changed as (
                update worker w set %s
                  from locked
                 where w.id = locked.id and w.deleted_at is null
                returning w.id, locked.was, w.state, w.directive),
            events as (
                insert into worker_event (worker_id, kind, state, from_state, directive, actor, detail)
                select id, 'OFFLINE', state, was, directive, :actor, 'unregister' from changed where was <> state)
            select id from changed
            """.formatted(locked("state"), SET_OFFLINE);

    /** Deleted by an operator: OFFLINE and deleted at once, one DELETED event. */
    static final String WORKER_SOFT_DELETE = """
            with %s,
            changed as (
                update worker w set %s, deleted_at = now()
                  from locked
                 where w.id = locked.id and w.deleted_at is null
                returning w.id, locked.was, w.state, w.directive),
            events as (
                insert into worker_event (worker_id, kind, state, from_state, directive, actor, detail)
                select id, 'DELETED', state, nullif(was, state), directive, 'operator', 'delete' from changed)
            select id from changed
            """.formatted(locked("state"), SET_OFFLINE);

    /** The operator's directive; a DIRECTIVE event when it changes (the same directive again is none). */
    static final String WORKER_SET_DIRECTIVE = """
            with %s,
            changed as (
                update worker w set directive = :directive
                  from locked
                 where w.id = locked.id and w.deleted_at is null
                returning w.id, locked.was, w.state, w.directive),
            events as (
                insert into worker_event (worker_id, kind, state, directive, from_directive, actor)
                select id, 'DIRECTIVE', state, directive, was, 'operator' from changed where was <> directive)
            select id from changed
            """.formatted(locked("directive"));

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

    /**
     * The database's time as ISO 8601 text in UTC, for an event's detail. The zone is spelled in
     * lower case: to SqlVocabularyTest an upper-case literal in a store is a state's name.
     */
    private static String iso(String column) {
        return "to_char(%s at time zone 'utc', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')".formatted(column);
    }

    /**
     * Silent past the offline threshold: OFFLINE, in bounded batches, each with its event; the
     * caller fails their jobs.
     */
    static final String WORKER_MARK_OFFLINE = """
            with due as materialized (
                select id, state as was from worker
                 where deleted_at is null and state <> 'OFFLINE'
                   and last_seen_at < now() - :thresholdMs * interval '1 millisecond'
                 order by last_seen_at
                 limit :batch
                   for update skip locked),
            changed as (
                update worker w set %s
                  from due
                 where w.id = due.id
                   and w.deleted_at is null and w.state <> 'OFFLINE'
                   and w.last_seen_at < now() - :thresholdMs * interval '1 millisecond'
                returning w.id, due.was, w.state, w.directive, w.last_seen_at),
            events as (
                insert into worker_event (worker_id, kind, state, from_state, directive, actor, detail)
                select id, 'OFFLINE', state, was, directive, 'sweeper', 'no ping since ' || %s from changed)
            select id from changed
            """.formatted(SET_OFFLINE, iso("last_seen_at"));

    /**
     * Silent past the unreachable threshold, each with its event. Rows another replica's sweep
     * has locked are skipped, not waited for: two sweeps scanning from different places in the
     * table would otherwise lock rows in opposite orders and deadlock.
     */
    static final String WORKER_MARK_UNREACHABLE = """
            with due as materialized (
                select id from worker
                 where deleted_at is null and state = 'ONLINE'
                   and last_seen_at < now() - :thresholdMs * interval '1 millisecond'
                 order by last_seen_at
                 limit :batch
                   for update skip locked),
            changed as (
                update worker w
                   set state = 'UNREACHABLE', state_changed_at = now()
                  from due
                 where w.id = due.id and w.deleted_at is null and w.state = 'ONLINE'
                   and w.last_seen_at < now() - :thresholdMs * interval '1 millisecond'
                returning w.id, w.state, w.directive, w.last_seen_at),
            events as (
                insert into worker_event (worker_id, kind, state, from_state, directive, actor, detail)
                select id, 'UNREACHABLE', state, 'ONLINE', directive, 'sweeper', 'no ping since ' || %s from changed)
            select id from changed
            """.formatted(iso("last_seen_at"));

    /**
     * OFFLINE for at least the threshold (zero: every OFFLINE worker): soft-deleted, each with a
     * DELETED event by {@code :actor} (the sweeper, or an operator's cleanup named by
     * {@code :cause}).
     */
    static final String WORKER_DELETE_OFFLINE = """
            with due as materialized (
                select id from worker
                 where deleted_at is null and state = 'OFFLINE'
                   and state_changed_at <= now() - :thresholdMs * interval '1 millisecond'
                 limit :batch
                   for update skip locked),
            changed as (
                update worker w
                   set deleted_at = now()
                  from due
                 where w.id = due.id
                   and w.deleted_at is null and w.state = 'OFFLINE'
                   and w.state_changed_at <= now() - :thresholdMs * interval '1 millisecond'
                returning w.id, w.state, w.directive, w.state_changed_at),
            events as (
                insert into worker_event (worker_id, kind, state, directive, actor, detail)
                select id, 'DELETED', state, directive, :actor,
                       concat_ws(': ', cast(:cause as text), 'OFFLINE since ' || %s)
                  from changed)
            select id from changed
            """.formatted(iso("state_changed_at"));

    private final JdbcClient jdbc;

    WorkerStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    void register(UUID id, RegisterWorker request, String labelsJson, byte[] tokenHash, Actor actor) {
        jdbc.sql(WORKER_REGISTER)
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
                .param("previousId", request.previousWorkerId())
                .param("actor", actor.label())
                .query(UUID.class).single();
    }

    /**
     * What a ping's update returns. {@code holdsClaims}: the worker held a POLLED job in the
     * update's snapshot. A claim committed after it is not yet past the orphan grace period
     * (with a grace of 0, the worker's next idle ping releases it).
     */
    record Heartbeat(WorkerState state, Directive directive, OffsetDateTime serverTime, boolean holdsClaims) {
    }

    /** A heartbeat of an ONLINE worker, committed asynchronously ({@link #WORKER_PING}). */
    Optional<Heartbeat> ping(UUID id) {
        return jdbc.sql(WORKER_PING).param("id", id).query(WorkerStore::beat).optional();
    }

    /**
     * Each worker's heartbeat, in the order asked (empty for one unknown, deleted or not ONLINE);
     * one statement.
     */
    List<Optional<Heartbeat>> ping(List<UUID> ids) {
        Map<UUID, Heartbeat> beats = new HashMap<>();
        jdbc.sql(WORKER_PINGS).param("ids", SqlArrays.uuids(new HashSet<>(ids)))
                .query((rs, n) -> beats.put(rs.getObject("id", UUID.class), beat(rs, n)))
                .list();
        return ids.stream().map(id -> Optional.ofNullable(beats.get(id))).toList();
    }

    /** A heartbeat from any state, with its event if it brought the worker back ({@link #WORKER_REVIVE}). */
    Optional<Heartbeat> revive(UUID id) {
        return jdbc.sql(WORKER_REVIVE).param("id", id).query(WorkerStore::beat).optional();
    }

    private static Heartbeat beat(ResultSet rs, int row) throws SQLException {
        return new Heartbeat(WorkerState.valueOf(rs.getString("state")), Directive.valueOf(rs.getString("directive")),
                rs.getObject("server_time", OffsetDateTime.class), rs.getBoolean("holds_claims"));
    }

    /** Unregistered by {@code actor}; true also when it already was OFFLINE, false when not found. */
    boolean goOffline(UUID id, Actor actor) {
        return jdbc.sql(WORKER_GO_OFFLINE).param("id", id).param("actor", actor.label())
                .query(UUID.class).optional().isPresent();
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

    /** {@code cause}: what an operator asked for ({@code cleanup}), null for the sweeper. */
    List<UUID> deleteOffline(Duration offlineFor, int batch, Actor actor, @Nullable String cause) {
        return jdbc.sql(WORKER_DELETE_OFFLINE).param("thresholdMs", offlineFor.toMillis()).param("batch", batch)
                .param("actor", actor.label()).param("cause", cause)
                .query(UUID.class).list();
    }
}
