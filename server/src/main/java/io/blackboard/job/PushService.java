package io.blackboard.job;

import io.blackboard.functionblock.Schemas;
import io.blackboard.platform.errors.ApiException;
import io.blackboard.platform.errors.BadRequest;
import io.blackboard.worker.WorkerDirectory;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Service;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.NullNode;

/** The worker's results: one push or a batch, each landing only on the pusher's live claim. */
@Service
class PushService {

    private static final Logger log = LoggerFactory.getLogger(PushService.class);

    private final PushStore store;
    private final JobStore jobs;
    private final JsonMapper json;
    private final WorkerDirectory workers;
    private final Schemas schemas;
    private final JobMetrics metrics;
    private final JobSignals signals;
    private final DueJobs due;

    PushService(PushStore store, JobStore jobs, JsonMapper json, WorkerDirectory workers, Schemas schemas,
            JobMetrics metrics, JobSignals signals, DueJobs due) {
        this.signals = signals;
        this.due = due;
        this.store = store;
        this.jobs = jobs;
        this.json = json;
        this.workers = workers;
        this.schemas = schemas;
        this.metrics = metrics;
    }

    /**
     * Lands the holder's result. Pushing the same result again is answered like the first
     * push; anything else for a job that is not this worker's live claim is a conflict.
     * No transaction: the push is one statement, and what follows a push that changed nothing
     * only reads, so a transaction would add a BEGIN/COMMIT round trip and nothing else. The
     * statement lands a successful result only on a block without a result schema; with one,
     * the result is checked against it here and pushed again.
     */
    JobView push(PushRequest request) {
        PushStore.Push push = toPush(request);
        Optional<JobView> landed = store.push(push, false);
        if (landed.isEmpty() && request.status() == PushStatus.SUCCESS) {
            Map<UUID, String> schemas = store.resultSchemas(List.of(request.jobId()));
            if (schemas.containsKey(request.jobId())) {
                requireValidResult(request, schemas);
                landed = store.push(push, true);
            }
        }
        if (landed.isPresent()) {
            if (landed.get().status() == JobStatus.PUSHED) {
                signals.pushed();
            }
            return landed(landed.get());
        }
        workers.requireRegistered(push.workerId()); // a deleted worker is told so (404: register again)
        return answerUnchanged(push);
    }

    /**
     * Lands a batch of one worker's pushes; each item is answered on its own, as {@link #push}
     * would answer it alone. No transaction, as for one push: the first statement lands every
     * item it may without a schema check (failures, and successes on blocks without a result
     * schema), which is the whole batch on such blocks. Only the successes it left are checked
     * against their blocks' result schemas and, where valid, pushed again in a second statement;
     * what is still left changed nothing and is answered from the job's state.
     */
    List<PushOutcome> pushBatch(List<PushRequest> requests) {
        UUID workerId = requests.getFirst().workerId();
        for (int i = 0; i < requests.size(); i++) {
            if (!workerId.equals(requests.get(i).workerId())) {
                throw new BadRequest("[" + i + "] workerId: every push of a batch must name the same worker");
            }
        }
        return pushTogether(requests);
    }

    /**
     * Lands the pushes of several workers (each item names its own) as {@link #pushBatch} lands
     * one worker's, in the same statements: those of a shared push + next transaction
     * ({@link NextService}). Answers in the order of the items.
     */
    List<PushOutcome> pushTogether(List<PushRequest> requests) {
        List<Integer> all = IntStream.range(0, requests.size()).boxed().toList();
        Set<UUID> workerIds = requests.stream().map(PushRequest::workerId).collect(Collectors.toSet());
        Map<Integer, JobView> pushed = new HashMap<>(store.pushBatch(workerIds, batchRows(requests, all, false)));
        List<Integer> unchecked = new ArrayList<>();
        for (int i = 0; i < requests.size(); i++) {
            if (!pushed.containsKey(i) && requests.get(i).status() == PushStatus.SUCCESS) {
                unchecked.add(i);
            }
        }
        Map<Integer, PushOutcome> refused = new HashMap<>();
        if (!unchecked.isEmpty()) {
            Map<UUID, String> schemas = store.resultSchemas(
                    unchecked.stream().map(i -> requests.get(i).jobId()).toList());
            List<Integer> valid = new ArrayList<>();
            for (int i : unchecked) {
                if (!schemas.containsKey(requests.get(i).jobId())) {
                    continue; // no schema to check: it did not land because it is not this worker's live claim
                }
                try {
                    requireValidResult(requests.get(i), schemas);
                    valid.add(i);
                } catch (ApiException e) {
                    refused.put(i, new PushOutcome(requests.get(i).jobId(), e.status().value(), null, e.toProblem()));
                }
            }
            if (!valid.isEmpty()) {
                pushed.putAll(store.pushBatch(workerIds, batchRows(requests, valid, true)));
            }
        }
        pushed.values().forEach(this::landed);
        if (pushed.values().stream().anyMatch(job -> job.status() == JobStatus.PUSHED)) {
            signals.pushed();
        }
        Set<UUID> unanswered = new LinkedHashSet<>();
        for (int i = 0; i < requests.size(); i++) {
            if (!pushed.containsKey(i) && !refused.containsKey(i)) {
                unanswered.add(requests.get(i).workerId());
            }
        }
        unanswered.forEach(workers::requireRegistered); // a deleted worker is told so (404), not 409 for each job
        List<PushOutcome> outcomes = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            JobView job = pushed.get(i);
            outcomes.add(refused.containsKey(i) ? refused.get(i)
                    : job != null ? new PushOutcome(job.id(), 200, job, null) : answerAlone(requests.get(i)));
        }
        return outcomes;
    }

    /**
     * The batch statement's input: the items at {@code positions}, each with its position as
     * {@code ord}, a JSON array written field by field (a map per item went through Jackson's
     * type look-ups for every value).
     */
    private String batchRows(List<PushRequest> requests, List<Integer> positions, boolean checked) {
        StringWriter text = new StringWriter(160 * positions.size());
        try (JsonGenerator rows = json.createGenerator(text)) {
            rows.writeStartArray();
            for (int i : positions) {
                PushRequest request = requests.get(i);
                rows.writeStartObject();
                rows.writeNumberProperty("ord", i);
                rows.writeStringProperty("job_id", request.jobId().toString());
                rows.writeStringProperty("worker_id", request.workerId().toString());
                if (request.attempt() == null) {
                    rows.writeNullProperty("attempt");
                } else {
                    rows.writeNumberProperty("attempt", request.attempt().intValue());
                }
                rows.writeStringProperty("outcome", request.status().name());
                document(rows, "result", request.result());
                document(rows, "acquires", request.acquires());
                document(rows, "db_updates", request.dbUpdates());
                document(rows, "error", request.error());
                rows.writeBooleanProperty("checked", checked);
                rows.writeEndObject();
            }
            rows.writeEndArray();
        }
        return text.toString();
    }

    private static void document(JsonGenerator rows, String name, @Nullable JsonNode value) {
        rows.writeName(name);
        if (value == null) {
            rows.writeNull();
        } else {
            rows.writeTree(value);
        }
    }

    /** A successful result must match its function block's resultDataJsonSchema; the job stays POLLED if not. */
    private void requireValidResult(PushRequest request, Map<UUID, String> schemas) {
        String schema = schemas.get(request.jobId());
        if (schema == null || request.status() != PushStatus.SUCCESS) {
            return;
        }
        JsonNode result = request.result() == null ? NullNode.getInstance() : request.result();
        List<String> violations = this.schemas.violations(Optional.of(schema), result);
        if (!violations.isEmpty()) {
            throw new JobProblems.SchemaViolation("result", "resultDataJsonSchema", violations);
        }
    }

    private PushOutcome answerAlone(PushRequest request) {
        try {
            JobView job = answerUnchanged(toPush(request));
            return new PushOutcome(job.id(), 200, job, null);
        } catch (ApiException e) {
            return new PushOutcome(request.jobId(), e.status().value(), null, e.toProblem());
        }
    }

    private PushStore.Push toPush(PushRequest request) {
        return new PushStore.Push(request.jobId(), request.workerId(), request.attempt(),
                request.status(), document(request.result()), document(request.acquires()),
                document(request.dbUpdates()), document(request.error()));
    }

    /**
     * A push landed; a failure its retry policy runs again waits out its backoff ({@link DueJobs}),
     * and one it parks waits for an operator ({@link DeadLetters}).
     */
    private JobView landed(JobView job) {
        if (job.scheduled()) {
            metrics.retried();
            JobSignals.afterCommit(due::scheduled);
            log.info("Job {} attempt {} failed: WORKER_REPORTED; it runs again from {}", job.id(), job.attempt(),
                    job.runAt());
            return job;
        }
        if (job.status() == JobStatus.PARKED) {
            metrics.parked();
            log.warn("Job {} attempt {} failed: WORKER_REPORTED; parked as a dead letter", job.id(), job.attempt());
            return job;
        }
        metrics.pushed(job);
        if (job.outcome() == Outcome.FAILURE) {
            log.info("Job {} attempt {} failed on worker {}: WORKER_REPORTED", job.id(), job.attempt(), job.workerId());
        } else {
            log.debug("Job {} attempt {} pushed by worker {}: {}", job.id(), job.attempt(), job.workerId(),
                    job.outcome());
        }
        return job;
    }

    /**
     * A push that changed nothing, of a registered worker: the job's state says whether it was
     * this very result again (200), another result for a job this worker already pushed, or a
     * claim the worker no longer holds (409).
     */
    private JobView answerUnchanged(PushStore.Push push) {
        PushStore.Verdict verdict = store.verdict(push)
                .orElseThrow(() -> new JobProblems.JobNotFound(push.jobId()));
        if (verdict.repeated()) {
            return jobs.find(push.jobId()).orElseThrow();
        }
        if (verdict.mine()) {
            throw new JobProblems.AlreadyPushed(push.jobId(), verdict.state());
        }
        throw new JobProblems.JobNotHeld(push.jobId(), push.workerId(), push.attempt(), verdict.state());
    }

    private @Nullable String document(@Nullable JsonNode node) {
        return node == null || node.isNull() ? null : json.writeValueAsString(node);
    }
}
