package io.blackboard.job;

import java.util.List;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * What another protocol's writes to the job table tell the rest of the server, once their
 * transaction commits: jobs a poll may claim now (parked polls on every replica wake), jobs
 * scheduled (the due-job timer looks again), jobs ended (result-feed readers wake). The OJS
 * binding writes jobs with statements of its own and calls these as the native paths do.
 */
@Component
public class JobWakeups {

    private final JobSignals signals;
    private final DueJobs due;

    JobWakeups(JobSignals signals, DueJobs due) {
        this.signals = signals;
        this.due = due;
    }

    /** Jobs of these function blocks (one entry per job) became PENDING. */
    public void pending(List<UUID> functionBlockIds) {
        signals.pendingAgain(functionBlockIds);
    }

    /** Jobs became SCHEDULED: new ones, or retries waiting out their backoff. */
    public void scheduled() {
        JobSignals.afterCommit(due::scheduled);
    }

    /** Jobs ended (PUSHED): the result feed has news. */
    public void ended() {
        signals.pushed();
    }
}
