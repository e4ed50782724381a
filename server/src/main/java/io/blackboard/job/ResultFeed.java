package io.blackboard.job;

import io.blackboard.platform.errors.BadRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code GET /blackboard/results}: PUSHED jobs in push order after a cursor. The cursor is
 * {@code <push transaction id>-<push sequence>}; {@code 0-0} is the beginning. A reader that
 * asks to wait holds no connection meanwhile: it waits for the wake-up of a push on any replica
 * ({@link ResultWaiters}), re-checking on its own every {@code BLACKBOARD_POLL_RECHECK_MS}.
 */
@Service
class ResultFeed {

    static final String START = "0-0";
    /** How soon a reader re-reads when pushes after its cursor wait for an older transaction to end. */
    private static final Duration PENDING_RECHECK = Duration.ofMillis(50);

    private final ResultStore store;
    private final TransactionTemplate tx;
    private final ResultWaiters waiters;
    private final JobProperties properties;

    ResultFeed(ResultStore store, TransactionTemplate tx, ResultWaiters waiters, JobProperties properties) {
        this.store = store;
        this.tx = tx;
        this.waiters = waiters;
        this.properties = properties;
    }

    /** Waits up to {@code waitMs} for a first result, holding no connection while it waits. */
    ResultPage read(String after, int limit, int waitMs) throws InterruptedException {
        Position from = Position.parse(after);
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        while (true) {
            long seen = waiters.generation(); // before the read: a push after it is never missed
            Read read = tx.execute(status -> readOnce(from, limit, waitMs > 0));
            long left = until - System.nanoTime();
            if (!read.page().results().isEmpty() || left <= 0 || !waiters.isOpen()) {
                return read.page();
            }
            Duration recheck = read.pending() ? PENDING_RECHECK : properties.pollRecheck();
            waiters.awaitAfter(seen, Duration.ofNanos(Math.min(left, recheck.toNanos())));
        }
    }

    /** A page, and whether pushes after it wait to become readable ({@link ResultStore#JOB_RESULTS_PENDING}). */
    private record Read(ResultPage page, boolean pending) {
    }

    private Read readOnce(Position from, int limit, boolean waiting) {
        List<ResultStore.FeedRow> rows = store.resultsAfter(from.xid(), from.seq(), limit);
        if (rows.isEmpty()) {
            boolean pending = waiting && store.resultsPending(from.xid(), from.seq());
            return new Read(new ResultPage(List.of(), from.text()), pending);
        }
        String next = rows.getLast().xid() + "-" + rows.getLast().seq();
        return new Read(new ResultPage(rows.stream().map(ResultStore.FeedRow::job).toList(), next), false);
    }

    private record Position(String xid, long seq) {

        static Position parse(String text) {
            String[] parts = text.split("-", -1);
            try {
                if (parts.length == 2) {
                    long xid = Long.parseLong(parts[0]);
                    long seq = Long.parseLong(parts[1]);
                    if (xid >= 0 && seq >= 0) {
                        return new Position(Long.toString(xid), seq);
                    }
                }
            } catch (NumberFormatException e) {
                // answered below
            }
            throw new BadRequest("'" + text + "' is not a result cursor: use 0-0 or the 'next' of a previous page");
        }

        String text() {
            return xid + "-" + seq;
        }
    }
}
