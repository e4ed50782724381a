package io.blackboard.job;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Tells parked polls that jobs became PENDING, and waiting result-feed readers that jobs became
 * PUSHED, once the transaction that made them commits: in-process at once, and to the other
 * replicas through {@link JobNotifications}, off the transaction's path.
 */
@Component
class JobSignals {

    /** {@code count} jobs of a function block became PENDING; selector null when not known. */
    record Signal(UUID functionBlockId, @Nullable Map<String, String> selector, int count) {
    }

    private final PollWaiters waiters;
    private final ResultWaiters readers;
    private final JobNotifications notifications;
    private final ClaimHints hints;

    JobSignals(PollWaiters waiters, ResultWaiters readers, JobNotifications notifications, ClaimHints hints) {
        this.hints = hints;
        this.waiters = waiters;
        this.readers = readers;
        this.notifications = notifications;
    }

    void pending(List<Signal> signals) {
        if (!signals.isEmpty()) {
            afterCommit(() -> publish(signals));
        }
    }

    /** Jobs became PUSHED (pushed, failed on the server, or cancelled): the result feed has news. */
    void pushed() {
        afterCommit(() -> {
            readers.wake();
            notifications.sendPushed();
        });
    }

    /** Runs {@code action} once the current transaction commits; at once outside of one. */
    static void afterCommit(Runnable action) {
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    action.run();
                }
            });
        } else {
            action.run();
        }
    }

    /**
     * Jobs of these function blocks (one entry per job) went back to PENDING: re-queued or
     * released, behind where this replica's claims got to, so its next claims start at the front.
     */
    void pendingAgain(List<UUID> functionBlockIds) {
        afterCommit(() -> hints.forgetBlocks(Set.copyOf(functionBlockIds)));
        Map<UUID, Integer> counts = new LinkedHashMap<>();
        functionBlockIds.forEach(id -> counts.merge(id, 1, Integer::sum));
        pending(counts.entrySet().stream().map(e -> new Signal(e.getKey(), null, e.getValue())).toList());
    }

    private void publish(List<Signal> signals) {
        for (Signal signal : signals) {
            waiters.wake(signal.functionBlockId(), signal.selector(), signal.count());
        }
        notifications.send(signals);
    }
}
