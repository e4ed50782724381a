package io.blackboard.job;

import io.blackboard.worker.WorkerDirectory;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Service;

/**
 * Progress a worker reports on a job it holds: visible on the job, in its events and on the
 * dashboard, and a lease extension, so a long job that reports progress needs no other sign of
 * life. Fenced as a push: only the live claim's worker at its attempt may report.
 */
@Service
class ProgressReports {

    /** The least time between two recorded reports of one job; reports in between change nothing. */
    static final Duration MIN_GAP = Duration.ofSeconds(2);

    /** {@code recorded}: false when the report came within {@link #MIN_GAP} of the last one (then no deadline). */
    record Answer(UUID jobId, boolean recorded, @Nullable OffsetDateTime deadline) {
    }

    private final ProgressStore store;
    private final JobStore jobs;
    private final JobProperties properties;
    private final WorkerDirectory workers;

    ProgressReports(ProgressStore store, JobStore jobs, JobProperties properties, WorkerDirectory workers) {
        this.store = store;
        this.jobs = jobs;
        this.properties = properties;
        this.workers = workers;
    }

    /** 404 for an unknown job (or a deleted worker), 409 for a job that is not this worker's live claim. */
    Answer report(ProgressRequest request) {
        ProgressStore.Outcome outcome = store.record(request, properties.stuckJobTimeout(), MIN_GAP);
        if (!outcome.held()) {
            workers.requireRegistered(request.workerId());
            JobView job = jobs.find(request.jobId()).orElseThrow(() -> new JobProblems.JobNotFound(request.jobId()));
            throw new JobProblems.JobNotHeld(request.jobId(), request.workerId(), request.attempt(),
                    new JobProblems.JobState(job.status(), job.attempt(), job.outcome(), job.failureReason()));
        }
        return new Answer(request.jobId(), outcome.deadline().isPresent(), outcome.deadline().orElse(null));
    }
}
