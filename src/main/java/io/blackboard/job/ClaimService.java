package io.blackboard.job;

import io.blackboard.worker.WorkerNotFound;
import io.blackboard.worker.WorkerService;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The worker's side of the blackboard: claim jobs, push their results. */
@Service
class ClaimService {

    private static final Logger log = LoggerFactory.getLogger(ClaimService.class);
    private static final long RECHECK_MS = 50;

    private final ClaimStore store;
    private final JobProperties properties;
    private final TransactionTemplate tx;
    private final JsonMapper json;
    private final WorkerService workers;

    ClaimService(ClaimStore store, JobProperties properties, TransactionTemplate tx, JsonMapper json,
            WorkerService workers) {
        this.workers = workers;
        this.store = store;
        this.properties = properties;
        this.tx = tx;
        this.json = json;
    }

    /** Claims up to {@code limit} jobs, waiting up to {@code waitMs} for one without holding a connection. */
    List<JobView> poll(PollRequest request) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(request.waitMsOrDefault());
        while (true) {
            List<JobView> claimed = tx.execute(status -> claimOnce(request));
            long left = until - System.nanoTime();
            if (!claimed.isEmpty() || left <= 0) {
                return claimed;
            }
            Thread.sleep(Math.min(RECHECK_MS, TimeUnit.NANOSECONDS.toMillis(left) + 1));
        }
    }

    private List<JobView> claimOnce(PollRequest request) {
        UUID workerId = request.workerId();
        ClaimStore.PollingWorker worker = store.lockForPoll(workerId).orElseThrow(() -> new WorkerNotFound(workerId));
        List<UUID> blocks = worker.functionBlockIds();
        if (request.functionBlockIds() != null) {
            Set<UUID> registered = new HashSet<>(blocks);
            for (UUID id : request.functionBlockIds()) {
                if (!registered.contains(id)) {
                    throw new JobProblems.NotServedByWorker(workerId, id);
                }
            }
            blocks = List.copyOf(new LinkedHashSet<>(request.functionBlockIds()));
        }
        if (!"ONLINE".equals(worker.state()) || !"RUN".equals(worker.directive()) || blocks.isEmpty()) {
            return List.of();
        }
        List<JobView> claimed = store.claim(workerId, worker, blocks, request.limitOrDefault(),
                properties.stuckJobTimeout());
        if (!claimed.isEmpty() && log.isDebugEnabled()) {
            log.debug("Worker {} claimed {}", workerId, claimed.stream().map(JobView::id).toList());
        }
        return claimed;
    }

    /**
     * Lands the holder's result. Pushing the same result again is answered like the first
     * push; anything else for a job that is not this worker's live claim is a conflict.
     * No transaction: the push is one statement, and what follows a push that changed nothing
     * only reads, so a transaction would add a BEGIN/COMMIT round trip and nothing else.
     */
    JobView push(PushRequest request) {
        ClaimStore.Push push = new ClaimStore.Push(request.jobId(), request.workerId(), request.attempt(),
                request.status().name(), document(request.result()), document(request.acquires()),
                document(request.dbUpdates()), document(request.error()));
        return store.push(push).orElseGet(() -> answerUnchanged(push));
    }

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
