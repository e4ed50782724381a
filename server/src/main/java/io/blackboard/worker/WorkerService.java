package io.blackboard.worker;

import io.blackboard.platform.sql.Coalescer;
import io.blackboard.platform.sql.Ids;
import io.blackboard.platform.web.ServerVersion;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/** The worker registry's changes: registration, heartbeats, directives, going OFFLINE and deletion. */
@Service
class WorkerService {

    /** Rows a bulk transition changes per transaction. */
    static final int BATCH = 500;
    /** Coalesced heartbeat statements running at once on this replica. */
    private static final int PING_BATCHES_IN_FLIGHT = 2;
    /** Heartbeats one statement takes before those queued behind it go in the next. */
    private static final int MAX_PING_BATCH = 500;

    private static final Logger log = LoggerFactory.getLogger(WorkerService.class);

    private final WorkerStore store;
    private final WorkerDirectory directory;
    private final HeldJobs heldJobs;
    private final WorkerProperties properties;
    private final JsonMapper json;
    private final TransactionTemplate tx;
    private final WorkerCredentials credentials;
    private final ServerVersion server;
    private final Coalescer<UUID, Optional<WorkerStore.Heartbeat>> idlePings;

    WorkerService(WorkerStore store, WorkerDirectory directory, HeldJobs heldJobs, WorkerProperties properties,
            JsonMapper json, TransactionTemplate tx, WorkerCredentials credentials,
            ServerVersion server) {
        this.server = server;
        // no worker's heartbeat can fail the statement alone, but a deadlock with a statement that
        // locks several workers in another order (a sweep) can: each ping run alone then gets through
        this.idlePings = new Coalescer<>(store::ping, PessimisticLockingFailureException.class::isInstance,
                PING_BATCHES_IN_FLIGHT, MAX_PING_BATCH);
        this.tx = tx;
        this.credentials = credentials;
        this.store = store;
        this.directory = directory;
        this.heldJobs = heldJobs;
        this.properties = properties;
        this.json = json;
    }

    /**
     * Registers a worker and issues the token bound to it; only the token's hash is stored. The
     * worker's history starts with it, and the deleted worker it names as its previous one gets
     * a line saying it came back as this one.
     */
    @Transactional
    RegisteredWorker register(RegisterWorker request, Actor actor) {
        UUID previous = request.previousWorkerId();
        if (previous != null && directory.isRegistered(previous)) {
            throw new WorkerNotDeleted(previous); // deletion is final: the check cannot go stale
        }
        UUID id = Ids.newId();
        WorkerCredentials.Issued credentials = WorkerCredentials.issue();
        store.register(id, request, json.writeValueAsString(request.labelsOrEmpty()), credentials.hash(), actor);
        log.info("Worker {} registered as {} ({}@{}, {} {}){}", id, request.name(), request.pid(), request.hostname(),
                request.sdkName(), request.sdkVersion(), previous == null ? "" : ", replacing " + previous);
        return new RegisteredWorker(directory.find(id), credentials.token(), server.version(), ServerVersion.API_VERSION,
                properties.pingInterval().toMillis(), heldJobs.orphanGrace().toMillis(), ServerVersion.MAX_POLL_WAIT_MS);
    }

    /**
     * A heartbeat, which never waits for a WAL flush (see {@link WorkerStore#WORKER_PING}). An
     * idle worker (most pings at scale: it lists no jobs and holds none) costs one statement and
     * no transaction, so its connection is back in the pool after one round trip; the idle pings
     * that arrive together share that statement ({@link Coalescer}). Every other
     * ping records itself and applies its view of held jobs in one transaction, which the
     * heartbeat's statement makes asynchronous too. A worker that was not ONLINE comes back by
     * {@link WorkerStore#WORKER_REVIVE}, which writes that change to its history; the pings of
     * ONLINE workers change no state and write none.
     */
    PingReply ping(UUID id, @Nullable List<UUID> activeJobIds) {
        boolean idle = activeJobIds != null && activeJobIds.isEmpty();
        if (idle) {
            Optional<WorkerStore.Heartbeat> online = idlePings.run(id, 1);
            if (online.isPresent()) {
                // it lists nothing, so every claim it holds past the grace period is an orphan to release
                List<UUID> cancel = online.get().holdsClaims()
                        ? tx.execute(status -> heldJobs.heartbeat(id, activeJobIds)) : List.of();
                return reply(online.get(), cancel);
            }
        }
        return tx.execute(status -> {
            // an idle ping gets here only when its worker was not ONLINE (or is not registered)
            Optional<WorkerStore.Heartbeat> online = idle ? Optional.empty() : store.ping(id);
            WorkerStore.Heartbeat beat = online.or(() -> store.revive(id)).orElseThrow(() -> new WorkerNotFound(id));
            // as above: an idle worker's claims need looking at only if it holds some (after an
            // outage every worker comes back here at once)
            return reply(beat, idle && !beat.holdsClaims() ? List.of() : heldJobs.heartbeat(id, activeJobIds));
        });
    }

    private PingReply reply(WorkerStore.Heartbeat beat, List<UUID> cancel) {
        return new PingReply(beat.state(), beat.directive(), beat.serverTime(),
                properties.pingInterval().toMillis(), cancel);
    }

    @Transactional
    WorkerView unregister(UUID id, Actor actor) {
        if (!store.goOffline(id, actor)) {
            throw new WorkerNotFound(id);
        }
        int failed = tookOffline(List.of(id), WorkerLoss.WORKER_OFFLINE);
        log.info("Worker {} unregistered; {} held jobs taken back", id, failed);
        return directory.find(id);
    }

    @Transactional
    void delete(UUID id) {
        if (!store.softDelete(id)) {
            directory.requireKnown(id); // already deleted: deleting again changes nothing
            return;
        }
        credentials.forget(id);
        int failed = tookOffline(List.of(id), WorkerLoss.WORKER_DELETED);
        log.info("Worker {} deleted; {} held jobs taken back", id, failed);
    }

    /** What silence did in one batch: workers made OFFLINE, and the jobs taken back from them. */
    record Offline(int workers, int jobs) {
    }

    /**
     * Makes OFFLINE a bounded batch ({@link #BATCH}) of workers silent past the offline
     * threshold, in one transaction with taking back their jobs; the liveness sweeper calls it
     * until a batch comes back short.
     */
    Offline markSilentOffline() {
        return tx.execute(status -> {
            List<UUID> ids = store.markOffline(properties.offlineThreshold(), BATCH);
            int jobs = tookOffline(ids, WorkerLoss.WORKER_OFFLINE);
            if (!ids.isEmpty()) {
                log.warn("Workers OFFLINE (no ping for {}; {} held jobs taken back): {}",
                        properties.offlineThreshold(), jobs, ids);
            }
            return new Offline(ids.size(), jobs);
        });
    }

    /**
     * Marks UNREACHABLE the ONLINE workers silent past that threshold, a bounded batch
     * ({@link #BATCH}) per transaction; they keep their jobs.
     */
    int markSilentUnreachable() {
        int marked = 0;
        List<UUID> ids;
        do {
            ids = tx.execute(status -> store.markUnreachable(properties.unreachableThreshold(), BATCH));
            if (!ids.isEmpty()) {
                log.warn("Workers UNREACHABLE (no ping for {}; they keep their jobs): {}",
                        properties.unreachableThreshold(), ids);
            }
            marked += ids.size();
        } while (ids.size() == BATCH);
        return marked;
    }

    /**
     * What follows every way a worker goes OFFLINE ({@link WorkerStore#WORKER_GO_OFFLINE},
     * {@link WorkerStore#WORKER_SOFT_DELETE}, {@link WorkerStore#WORKER_MARK_OFFLINE}), inside
     * its transaction: the jobs it held are failed or re-queued. Answers how many.
     */
    private int tookOffline(List<UUID> ids, WorkerLoss loss) {
        return ids.isEmpty() ? 0 : heldJobs.takeFrom(ids, loss);
    }

    /** Sets the directive; when it stops the worker taking jobs, warns of work left with no one to run it. */
    @Transactional
    DirectiveReply direct(UUID id, Directive directive) {
        if (!store.setDirective(id, directive)) {
            throw new WorkerNotFound(id);
        }
        List<String> warnings = directive == Directive.RUN ? List.of() : store.strandedBlocks(id);
        log.info("Worker {} directed to {}{}", id, directive, warnings.isEmpty() ? "" : "; " + warnings);
        return new DirectiveReply(id, directive, directory.find(id).state(), warnings);
    }

    /**
     * Soft-deletes workers OFFLINE for at least {@code offlineFor} (zero: all OFFLINE ones),
     * a bounded batch per transaction. OFFLINE workers hold no jobs: going OFFLINE took them.
     * {@code cause}: the operator's request, for their history; null for the sweeper.
     */
    int deleteOffline(Duration offlineFor, Actor actor, @Nullable String cause) {
        int deleted = 0;
        int batch;
        do {
            batch = tx.execute(status -> store.deleteOffline(offlineFor, BATCH, actor, cause).size());
            deleted += batch;
        } while (batch == BATCH);
        if (deleted > 0) {
            log.info("Soft-deleted {} workers OFFLINE for at least {}", deleted, offlineFor);
        }
        return deleted;
    }
}
