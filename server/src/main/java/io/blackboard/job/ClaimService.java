package io.blackboard.job;

import io.blackboard.functionblock.Schemas;
import io.blackboard.platform.ApiException;
import io.blackboard.platform.BadRequest;
import io.blackboard.worker.WorkerNotFound;
import io.blackboard.worker.WorkerService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.transaction.annotation.Transactional;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.NullNode;

/** The worker's side of the blackboard: claim jobs, push their results. */
@Service
class ClaimService {

    private static final Logger log = LoggerFactory.getLogger(ClaimService.class);
    private static final TypeReference<Map<String, String>> LABELS = new TypeReference<>() { };

    private final ClaimStore store;
    private final JobProperties properties;
    private final TransactionTemplate tx;
    private final JsonMapper json;
    private final WorkerService workers;
    private final PollWaiters waiters;
    private final Schemas schemas;
    private final JobMetrics metrics;

    ClaimService(ClaimStore store, JobProperties properties, TransactionTemplate tx, JsonMapper json,
            WorkerService workers, PollWaiters waiters, Schemas schemas, JobMetrics metrics) {
        this.schemas = schemas;
        this.workers = workers;
        this.waiters = waiters;
        this.metrics = metrics;
        this.store = store;
        this.properties = properties;
        this.tx = tx;
        this.json = json;
    }

    /**
     * Claims up to {@code limit} jobs. With {@code waitMs} and nothing to claim, parks until a
     * matching job appears (on any replica), the periodic re-check, or the time runs out.
     */
    List<JobView> poll(PollRequest request) throws InterruptedException {
        Attempt first = tx.execute(status -> claimOnce(request));
        if (!first.claimed().isEmpty() || request.waitMsOrDefault() == 0) {
            return first.claimed();
        }
        PollWaiters.Waiter waiter = waiters.park(first.eligible() ? first.blocks() : Set.of(),
                json.readValue(first.labels(), LABELS));
        if (waiter == null) {
            if (!waiters.isOpen()) {
                return List.of();
            }
            throw new JobProblems.TooManyParkedPolls(properties.parkedPollLimit());
        }
        try {
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(request.waitMsOrDefault());
            while (true) {
                // the first pass closes the window between the empty claim and parking
                List<JobView> claimed = tx.execute(status -> claimOnce(request)).claimed();
                long left = until - System.nanoTime();
                if (!claimed.isEmpty() || left <= 0) {
                    return claimed;
                }
                waiter.await(Duration.ofNanos(Math.min(left, properties.pollRecheck().toNanos())));
                if (!waiters.isOpen()) {
                    return List.of(); // shutting down: answer now, holding nothing
                }
            }
        } finally {
            waiters.leave(waiter);
        }
    }

    /** One claim transaction's outcome, and what a parked poll waits for (labels as stored JSON). */
    private record Attempt(List<JobView> claimed, Set<UUID> blocks, String labels, boolean eligible) {
    }

    private Attempt claimOnce(PollRequest request) {
        UUID workerId = request.workerId();
        ClaimStore.PollingWorker worker = store.lockForPoll(workerId).orElseThrow(() -> new WorkerNotFound(workerId));
        Set<UUID> blocks = new LinkedHashSet<>(worker.functionBlockIds());
        if (request.functionBlockIds() != null) {
            for (UUID id : request.functionBlockIds()) {
                if (!blocks.contains(id)) {
                    throw new JobProblems.NotServedByWorker(workerId, id);
                }
            }
            blocks = new LinkedHashSet<>(request.functionBlockIds());
        }
        boolean eligible = "ONLINE".equals(worker.state()) && "RUN".equals(worker.directive()) && !blocks.isEmpty();
        if (!eligible) {
            return new Attempt(List.of(), blocks, worker.labels(), false);
        }
        List<JobView> claimed = store.claim(workerId, worker, blocks, request.limitOrDefault(),
                properties.stuckJobTimeout());
        metrics.claimed(claimed);
        if (!claimed.isEmpty() && log.isDebugEnabled()) {
            log.debug("Worker {} claimed {}", workerId, claimed.stream().map(JobView::id).toList());
        }
        return new Attempt(claimed, blocks, worker.labels(), true);
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
        ClaimStore.Push push = toPush(request);
        Optional<JobView> landed = store.push(push, false);
        if (landed.isEmpty() && request.status() == PushStatus.SUCCESS) {
            Map<UUID, String> schemas = store.resultSchemas(List.of(request.jobId()));
            if (schemas.containsKey(request.jobId())) {
                requireValidResult(request, schemas);
                landed = store.push(push, true);
            }
        }
        if (landed.isPresent()) {
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
        List<Integer> all = IntStream.range(0, requests.size()).boxed().toList();
        Map<Integer, JobView> pushed = new HashMap<>(store.pushBatch(workerId, batchRows(requests, all, false)));
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
                pushed.putAll(store.pushBatch(workerId, batchRows(requests, valid, true)));
            }
        }
        if (pushed.size() + refused.size() < requests.size()) {
            workers.requireRegistered(workerId); // a deleted worker is told so (404), not 409 for each job
        }
        List<PushOutcome> outcomes = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            JobView job = pushed.get(i);
            outcomes.add(refused.containsKey(i) ? refused.get(i)
                    : job != null ? new PushOutcome(job.id(), 200, landed(job), null) : answerAlone(requests.get(i)));
        }
        return outcomes;
    }

    /** The batch statement's input: the items at {@code positions}, each with its position as {@code ord}. */
    private String batchRows(List<PushRequest> requests, List<Integer> positions, boolean checked) {
        List<Map<String, Object>> rows = new ArrayList<>(positions.size());
        for (int i : positions) {
            PushRequest request = requests.get(i);
            Map<String, Object> row = new HashMap<>();
            row.put("ord", i);
            row.put("job_id", request.jobId());
            row.put("attempt", request.attempt());
            row.put("outcome", request.status().name());
            row.put("result", request.result());
            row.put("acquires", request.acquires());
            row.put("db_updates", request.dbUpdates());
            row.put("error", request.error());
            row.put("checked", checked);
            rows.add(row);
        }
        return json.writeValueAsString(rows);
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

    private ClaimStore.Push toPush(PushRequest request) {
        return new ClaimStore.Push(request.jobId(), request.workerId(), request.attempt(),
                request.status().name(), document(request.result()), document(request.acquires()),
                document(request.dbUpdates()), document(request.error()));
    }

    private JobView landed(JobView job) {
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
    private JobView answerUnchanged(ClaimStore.Push push) {
        ClaimStore.Verdict verdict = store.verdict(push)
                .orElseThrow(() -> new JobProblems.JobNotFound(push.jobId()));
        if (verdict.repeated()) {
            return store.find(push.jobId()).orElseThrow();
        }
        if (verdict.mine()) {
            throw new JobProblems.AlreadyPushed(push.jobId(), verdict.state());
        }
        throw new JobProblems.JobNotHeld(push.jobId(), push.workerId(), push.attempt(), verdict.state());
    }

    @Transactional(readOnly = true)
    List<JobView> ofWorker(UUID workerId, @Nullable JobStatus status, int limit) {
        workers.requireKnown(workerId);
        return store.ofWorker(workerId, status, limit);
    }

    private @Nullable String document(@Nullable JsonNode node) {
        return node == null || node.isNull() ? null : json.writeValueAsString(node);
    }
}
