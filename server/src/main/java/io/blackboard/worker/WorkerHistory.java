package io.blackboard.worker;

import java.util.List;
import java.util.UUID;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** A worker's history, page by page: every change of its state, directive or existence. */
@Service
class WorkerHistory {

    private final WorkerEventStore store;
    private final WorkerDirectory directory;

    WorkerHistory(WorkerEventStore store, WorkerDirectory directory) {
        this.store = store;
        this.directory = directory;
    }

    /** The events after the cursor (null: from the first); a deleted worker's too, an unknown one 404. */
    @Transactional(readOnly = true)
    WorkerEventPage page(UUID workerId, @Nullable WorkerEventPage.Cursor after, int limit) {
        directory.requireKnown(workerId);
        List<WorkerEvent> events = store.after(workerId, after == null ? 0 : after.afterId(), limit + 1);
        if (events.size() <= limit) {
            return new WorkerEventPage(events, null);
        }
        return new WorkerEventPage(events.subList(0, limit),
                new WorkerEventPage.Cursor(events.get(limit - 1).id()).encode());
    }
}
