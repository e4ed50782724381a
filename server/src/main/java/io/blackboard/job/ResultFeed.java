package io.blackboard.job;

import io.blackboard.platform.BadRequest;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code GET /blackboard/results}: PUSHED jobs in push order after a cursor. The cursor is
 * {@code <push transaction id>-<push sequence>}; {@code 0-0} is the beginning.
 */
@Service
class ResultFeed {

    static final String START = "0-0";
    private static final long RECHECK_MS = 50;

    private final JobStore store;
    private final TransactionTemplate tx;

    ResultFeed(JobStore store, TransactionTemplate tx) {
        this.store = store;
        this.tx = tx;
    }

    /** Waits up to {@code waitMs} for a first result, re-reading without holding a connection. */
    ResultPage read(String after, int limit, int waitMs) throws InterruptedException {
        Position from = Position.parse(after);
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        while (true) {
            ResultPage page = tx.execute(status -> readOnce(from, limit));
            long left = until - System.nanoTime();
            if (!page.results().isEmpty() || left <= 0) {
                return page;
            }
            Thread.sleep(Math.min(RECHECK_MS, TimeUnit.NANOSECONDS.toMillis(left) + 1));
        }
    }

    private ResultPage readOnce(Position from, int limit) {
        List<JobStore.FeedRow> rows = store.resultsAfter(from.xid(), from.seq(), limit);
        String next = rows.isEmpty() ? from.text()
                : rows.getLast().xid() + "-" + rows.getLast().seq();
        return new ResultPage(rows.stream().map(JobStore.FeedRow::job).toList(), next);
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
