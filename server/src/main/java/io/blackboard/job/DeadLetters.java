package io.blackboard.job;

import io.blackboard.platform.errors.BadRequest;
import io.blackboard.platform.web.NextPage;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Dead letters: jobs whose final reported failure their retry policy parked (onExhausted PARK).
 * An operator lists them with their error history, re-runs them (one or many: a new attempt,
 * the history kept) or discards one (it ends as the FAILURE it parked instead of, and only then
 * reaches the result feed: an ended job's outcome is never rewritten).
 */
@Service
class DeadLetters {

    private static final Logger log = LoggerFactory.getLogger(DeadLetters.class);
    /** Jobs one re-run transaction takes; a larger re-run commits in several. */
    static final int BATCH = 1_000;

    private final DeadLetterStore store;
    private final JobStore jobs;
    private final JobSignals signals;
    private final TransactionTemplate tx;

    DeadLetters(DeadLetterStore store, JobStore jobs, JobSignals signals, TransactionTemplate tx) {
        this.store = store;
        this.jobs = jobs;
        this.signals = signals;
        this.tx = tx;
    }

    /** Which dead letters a re-run takes: these ids, or every one of a block or correlation id (at least one). */
    record Selection(@Nullable List<UUID> jobIds, @Nullable UUID functionBlockId, @Nullable String correlationId) {
    }

    @Transactional(readOnly = true)
    JobPage list(@Nullable UUID functionBlockId, @Nullable String correlationId, @Nullable String after, int limit) {
        List<JobView> page = store.list(new DeadLetterStore.Filter(null, functionBlockId, correlationId),
                after == null ? null : decode(after), limit + 1);
        if (page.size() <= limit) {
            return new JobPage(page, null);
        }
        return new JobPage(page.subList(0, limit), encode(page.get(limit - 1).id()));
    }

    /** Re-runs one dead letter; 404 for an unknown job, 409 for one that is not parked. */
    JobView rerun(UUID id) {
        if (rerun(new DeadLetterStore.Filter(List.of(id), null, null)) == 0) {
            throw notParked(id);
        }
        return jobs.find(id).orElseThrow();
    }

    /** Re-runs every dead letter selected; answers how many. */
    int rerun(Selection selection) {
        if (selection.jobIds() == null && selection.functionBlockId() == null && selection.correlationId() == null) {
            throw new BadRequest("give jobIds, functionBlockId or correlationId: which dead letters to run again");
        }
        return rerun(new DeadLetterStore.Filter(selection.jobIds(), selection.functionBlockId(),
                selection.correlationId()));
    }

    private int rerun(DeadLetterStore.Filter filter) {
        int total = 0;
        UUID after = null;
        List<DeadLetterStore.Rerun> batch;
        do {
            UUID from = after;
            batch = tx.execute(status -> {
                List<DeadLetterStore.Rerun> rerun = store.rerun(filter, from, BATCH);
                signals.pendingAgain(rerun.stream().map(DeadLetterStore.Rerun::functionBlockId).toList());
                return rerun;
            });
            total += batch.size();
            after = batch.isEmpty() ? after : batch.getLast().id();
        } while (!batch.isEmpty());
        if (total > 0) {
            log.info("{} dead letters run again ({})", total, filter);
        }
        return total;
    }

    /** Ends a dead letter as the FAILURE it parked instead of; 404 unknown, 409 not parked. */
    JobView discard(UUID id) {
        Boolean discarded = tx.execute(status -> {
            boolean done = store.discard(id);
            if (done) {
                signals.pushed();
            }
            return done;
        });
        if (!Boolean.TRUE.equals(discarded)) {
            throw notParked(id);
        }
        log.info("Dead letter {} discarded: it ends as its FAILURE", id);
        return jobs.find(id).orElseThrow();
    }

    private RuntimeException notParked(UUID id) {
        JobView job = jobs.find(id).orElseThrow(() -> new JobProblems.JobNotFound(id));
        return new JobProblems.NotParked(id, new JobProblems.JobState(job.status(), job.attempt(), job.outcome(),
                job.failureReason()));
    }

    private static String encode(UUID id) {
        return NextPage.encode(id.toString());
    }

    private static UUID decode(String cursor) {
        try {
            return UUID.fromString(String.valueOf(NextPage.decode(cursor)));
        } catch (IllegalArgumentException e) {
            throw new BadRequest("'" + cursor + "' is not a cursor this server returned (use the 'next' value)");
        }
    }
}
