package io.blackboard.ojs;

import io.blackboard.functionblock.Schemas;
import io.blackboard.job.JobWakeups;
import io.blackboard.job.UndeliveredClaims;
import io.blackboard.platform.sql.Ids;
import io.blackboard.platform.web.Caller;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The binding's rules: what each OJS operation does to the native model, in one transaction
 * each, and what it answers. The statements are {@link OjsStore}'s; the wake-ups after a commit
 * ({@link JobWakeups}) are the native paths' own, so parked native polls, the due-job timer and
 * result-feed readers learn of OJS jobs as of native ones.
 */
@Service
class OjsService {

    private static final Logger log = LoggerFactory.getLogger(OjsService.class);
    /** Who holds the jobs of a fetch that names no worker. */
    static final String ANONYMOUS_WORKER = "anonymous";
    static final int MAX_BATCH = 1_000;
    static final int MAX_FETCH = 100;
    private static final Pattern WORKER_ID = Pattern.compile("\\S(.{0,198}\\S)?");

    private final OjsStore store;
    private final JobWakeups wakeups;
    private final UndeliveredClaims undelivered;
    private final TransactionTemplate tx;
    private final JsonMapper json;
    private final Schemas schemas;

    OjsService(OjsStore store, JobWakeups wakeups, UndeliveredClaims undelivered, TransactionTemplate tx,
            JsonMapper json, Schemas schemas) {
        this.undelivered = undelivered;
        this.schemas = schemas;
        this.store = store;
        this.wakeups = wakeups;
        this.tx = tx;
        this.json = json;
    }

    /** Enqueues the jobs, all or none: any invalid one, or an id already taken, refuses the batch. */
    List<ObjectNode> enqueue(List<JsonNode> bodies) {
        if (bodies.isEmpty() || bodies.size() > MAX_BATCH) {
            throw OjsException.invalid("jobs must hold 1 to " + MAX_BATCH + " jobs");
        }
        List<OjsEnvelope> jobs = new ArrayList<>();
        for (int i = 0; i < bodies.size(); i++) {
            jobs.add(OjsEnvelope.parse(bodies.get(i), bodies.size() == 1 ? "" : "jobs[" + i + "]: ", json));
        }
        Set<UUID> ids = new LinkedHashSet<>();
        for (OjsEnvelope job : jobs) {
            if (!ids.add(job.id())) {
                throw OjsException.duplicate("job " + job.id() + " is given twice");
            }
        }
        Map<String, OjsStore.Block> blocks = blocks(jobs.stream().map(OjsEnvelope::type).distinct().toList());
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++) {
            OjsEnvelope job = jobs.get(i);
            // a native worker of a registered block is handed only params its schema accepts
            List<String> violations = schemas.violations(Optional.ofNullable(blocks.get(job.type()).paramsSchema()),
                    job.payload());
            if (!violations.isEmpty()) {
                throw OjsException.unprocessable((jobs.size() == 1 ? "" : "jobs[" + i + "]: ") + "args break the"
                        + " paramsJsonSchema of function block " + job.type() + ": " + String.join("; ", violations));
            }
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("ord", i);
            row.put("id", job.id());
            row.put("function_block_id", blocks.get(job.type()).id());
            row.put("payload", job.payload());
            row.put("priority", job.priority());
            row.put("max_attempts", job.maxAttempts());
            row.put("correlation_id", job.correlationId());
            row.put("run_at", job.runAt() == null ? null : job.runAt().toString());
            row.put("retry_policy", job.retryPolicy());
            row.put("execution_timeout_ms", job.timeoutMs());
            row.put("queue", job.queue());
            row.put("ojs", job.ojs());
            rows.add(row);
        }
        String input = json.writeValueAsString(rows);
        Map<UUID, ObjectNode> shown = tx.execute(status -> {
            List<OjsJob> inserted = store.insert(input);
            if (inserted.size() < jobs.size()) {
                Set<UUID> taken = new LinkedHashSet<>(ids);
                inserted.forEach(job -> taken.remove(job.id()));
                throw OjsException.duplicate("a job with id " + taken.iterator().next() + " exists already");
            }
            List<UUID> pending = inserted.stream().filter(job -> job.status().equals("PENDING"))
                    .map(job -> blocks.get(job.type()).id()).toList();
            if (!pending.isEmpty()) {
                wakeups.pending(pending);
            }
            if (pending.size() < inserted.size()) {
                wakeups.scheduled();
            }
            // shown inside the transaction: a job that cannot be shown is not enqueued either
            Map<UUID, ObjectNode> byId = new LinkedHashMap<>();
            inserted.forEach(job -> byId.put(job.id(), job.toJson(json)));
            return byId;
        });
        log.debug("Enqueued {} OJS jobs", shown.size());
        return jobs.stream().map(job -> shown.get(job.id())).toList();
    }

    /** The function block of each type: the newest registered of its name, else an implicit one made now. */
    private Map<String, OjsStore.Block> blocks(List<String> types) {
        Map<String, OjsStore.Block> found = store.blocks(types);
        if (found.size() < types.size()) {
            types.stream().filter(type -> !found.containsKey(type)).forEach(type -> store.implicitBlock(Ids.newId(), type));
            found.putAll(store.blocks(types));
        }
        return found;
    }

    ObjectNode info(UUID id) {
        return store.find(id).orElseThrow(() -> OjsException.notFound("job " + id)).toJson(json);
    }

    /** Cancels a job not yet ended; an ended one (a cancelled one too) is a conflict. */
    ObjectNode cancel(UUID id) {
        OjsJob cancelled = tx.execute(status -> {
            Optional<OjsJob> done = store.cancel(id);
            done.ifPresent(job -> wakeups.ended());
            return done.orElseGet(() -> {
                OjsJob job = store.find(id).orElseThrow(() -> OjsException.notFound("job " + id));
                throw OjsException.conflict("job " + id + " is " + job.state(job.attemptBase())
                        + " and cannot be cancelled");
            });
        });
        return cancelled.toJson(json);
    }

    /**
     * Claims up to {@code count} jobs of the queues for the worker; none while it is told to be
     * quiet. Claims whose caller has gone meanwhile, or whose answer then cannot be written, go
     * back to PENDING at once, as a native poll's do.
     */
    List<ObjectNode> fetch(List<String> queues, int count, @Nullable String workerId, @Nullable Long leaseMs,
            Caller caller) {
        String worker = worker(workerId);
        // shown inside the transaction: a claim whose answer cannot be made is not taken
        Fetched fetched = tx.execute(status -> {
            OjsStore.Worker holder = store.upsertWorker(worker, Ids.newId());
            if (holder.directive() != io.blackboard.worker.Directive.RUN) {
                return new Fetched(holder.id(), List.of(), List.of());
            }
            List<OjsJob> jobs = store.fetch(holder.id(), queues, count, leaseMs);
            return new Fetched(holder.id(), jobs, jobs.stream().map(job -> job.toJson(json)).toList());
        });
        if (fetched.jobs().isEmpty()) {
            return fetched.answer();
        }
        List<UUID> ids = fetched.jobs().stream().map(OjsJob::id).toList();
        List<Integer> attempts = fetched.jobs().stream().map(OjsJob::attempt).toList();
        if (caller.gone()) {
            undelivered.release(fetched.holder(), ids, attempts);
            return List.of();
        }
        caller.onUndelivered(() -> undelivered.release(fetched.holder(), ids, attempts));
        return fetched.answer();
    }

    /** A fetch's claims, for their holder, and the answer that carries them. */
    private record Fetched(UUID holder, List<OjsJob> jobs, List<ObjectNode> answer) {
    }

    /**
     * Completes the job. A result must match its function block's resultDataJsonSchema, as a
     * native push's must: checked before anything changes (a block's contract never changes).
     */
    ObjectNode ack(UUID jobId, @Nullable String workerId, @Nullable Integer attempt, @Nullable JsonNode result) {
        OjsStore.Claim claim = new OjsStore.Claim(jobId, workerId == null ? null : worker(workerId), attempt);
        Optional<String> schema = store.resultSchema(jobId);
        if (schema.isPresent()) {
            List<String> violations = schemas.violations(schema, result == null ? tools.jackson.databind.node.NullNode.getInstance() : result);
            if (!violations.isEmpty()) {
                throw OjsException.unprocessable("result breaks the resultDataJsonSchema of the job's function block: "
                        + String.join("; ", violations));
            }
        }
        String resultJson = result == null || result.isNull() ? null : json.writeValueAsString(result);
        ObjectNode answer = land(claim, () -> store.ack(claim, resultJson));
        answer.put("acknowledged", true);
        return answer;
    }

    /**
     * A failure: retried under the job's policy (retryable), parked (a dead letter) or final
     * (discarded); with {@code requeue} the claim is handed back instead (available, no
     * attempt spent). The error keeps OJS's fields, with the error's type (or its
     * {@code details.error_class}) as {@code type}, which non_retryable_errors match too.
     */
    ObjectNode nack(UUID jobId, @Nullable String workerId, @Nullable Integer attempt, JsonNode error,
            boolean requeue) {
        OjsStore.Claim claim = new OjsStore.Claim(jobId, workerId == null ? null : worker(workerId), attempt);
        if (requeue) {
            return land(claim, () -> store.release(claim));
        }
        ObjectNode stored = ((ObjectNode) error).deepCopy();
        if (!stored.has("type")) {
            JsonNode errorClass = error.path("details").path("error_class");
            if (errorClass.isString()) {
                stored.put("type", errorClass.asString());
            }
        }
        String errorJson = json.writeValueAsString(stored);
        return land(claim, () -> store.nack(claim, errorJson));
    }

    /**
     * Runs a landing and answers it (inside the transaction: an answer that cannot be made
     * undoes the landing); when it changed nothing, says why: no such job, not active, not this
     * worker's, or not this attempt.
     */
    private ObjectNode land(OjsStore.Claim claim, Supplier<Optional<OjsJob>> landing) {
        UUID jobId = claim.jobId();
        return tx.execute(status -> {
            Optional<OjsJob> landed = landing.get();
            if (landed.isPresent()) {
                switch (landed.get().status()) {
                    case "PUSHED" -> wakeups.ended();
                    case "SCHEDULED" -> wakeups.scheduled();
                    case "PENDING" -> wakeups.pending(List.of(store.blockOf(jobId)));
                    default -> {
                    }
                }
                return answer(landed.get());
            }
            OjsJob job = store.find(jobId).orElseThrow(() -> OjsException.notFound("job " + jobId));
            int base = job.attemptBase();
            String state = job.state(base);
            if (!state.equals("active")) {
                throw OjsException.conflict("job " + jobId + " is " + state + ", not active");
            }
            if (claim.attempt() != null && job.spent(base) != claim.attempt()) {
                throw OjsException.conflict("job " + jobId + " is on attempt " + job.spent(base) + ", not "
                        + claim.attempt());
            }
            throw OjsException.conflict("job " + jobId + " is held by "
                    + (job.worker() == null ? "a native Blackboard worker" : "worker " + job.worker())
                    + (claim.ojsWorker() == null ? "" : ", not by " + claim.ojsWorker()));
        });
    }

    private ObjectNode answer(OjsJob job) {
        ObjectNode shown = job.toJson(json);
        ObjectNode answer = json.createObjectNode();
        answer.put("id", job.id().toString());
        answer.put("job_id", job.id().toString());
        for (String field : List.of("state", "attempt", "max_attempts", "next_attempt_at", "retry_delay_ms",
                "completed_at", "discarded_at", "cancelled_at")) {
            if (shown.has(field)) {
                answer.set(field, shown.get(field));
            }
        }
        answer.set("job", shown);
        return answer;
    }

    /**
     * Extends the leases of the listed jobs the worker holds and answers its directive as OJS's
     * worker state; the listed jobs it no longer holds (cancelled, timed out) are named so it
     * stops them. Releases nothing.
     */
    ObjectNode heartbeat(String workerId, List<UUID> jobIds, @Nullable Long leaseMs) {
        String worker = worker(workerId);
        ObjectNode answer = json.createObjectNode();
        answer.put("state", "running");
        tx.executeWithoutResult(status -> {
            OjsStore.Worker holder = store.upsertWorker(worker, Ids.newId());
            List<UUID> extended = jobIds.isEmpty() ? List.of() : store.extend(holder.id(), jobIds, leaseMs);
            List<UUID> lost = jobIds.isEmpty() ? List.of() : store.notHeld(holder.id(), jobIds);
            answer.put("state", switch (holder.directive()) {
                case RUN -> "running";
                case QUIET -> "quiet";
                case TERMINATE -> "terminate";
            });
            ArrayNode ids = answer.putArray("jobs_extended");
            extended.forEach(id -> ids.add(id.toString()));
            ArrayNode gone = answer.putArray("cancelled_job_ids");
            lost.forEach(id -> gone.add(id.toString()));
            answer.put("server_time", OjsJob.time(holder.serverTime()));
        });
        return answer;
    }

    List<ObjectNode> deadLetters(@Nullable String queue, @Nullable UUID after, int limit) {
        return store.deadLetters(queue, after, limit).stream().map(job -> job.toJson(json)).toList();
    }

    ObjectNode retryDeadLetter(UUID id) {
        OjsJob job = tx.execute(status -> store.retryDeadLetter(id).map(rerun -> {
            wakeups.pending(List.of(store.blockOf(id)));
            return rerun;
        }).orElseThrow(() -> notADeadLetter(id)));
        return job.toJson(json);
    }

    void deleteDeadLetter(UUID id) {
        tx.executeWithoutResult(status -> {
            if (!store.deleteDeadLetter(id)) {
                throw notADeadLetter(id);
            }
            wakeups.ended();
        });
    }

    /** Why no OJS dead letter has this id: an OJS job in another state, or none (native ones are the operators'). */
    private OjsException notADeadLetter(UUID id) {
        return store.find(id).filter(job -> job.queue() != null).isPresent()
                ? OjsException.conflict("job " + id + " is not a dead letter")
                : OjsException.notFound("dead letter " + id);
    }

    List<ObjectNode> events(@Nullable List<String> types, @Nullable List<String> queues, @Nullable Long before,
            int limit) {
        return store.events(types, queues, before, limit).stream().map(event -> event.toJson(json)).toList();
    }

    List<ObjectNode> queues() {
        return store.queues().stream().map(queue -> queue.toJson(json)).toList();
    }

    boolean databaseUp() {
        return store.ping();
    }

    private static String worker(@Nullable String workerId) {
        if (workerId == null) {
            return ANONYMOUS_WORKER;
        }
        if (!WORKER_ID.matcher(workerId).matches() || workerId.indexOf('\u0000') >= 0) {
            throw OjsException.invalid("worker_id must be 1 to 200 characters, not starting or ending with a space");
        }
        return workerId;
    }
}
