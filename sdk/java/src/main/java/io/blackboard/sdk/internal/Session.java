package io.blackboard.sdk.internal;

import io.blackboard.sdk.WorkerConfig;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One registration: the worker's id and token, its function blocks by the ids the server gave them, and whether
 * that server has {@code POST /blackboard/job/next} (API 1.1) and {@code POST /blackboard/job/progress}. A
 * re-registration makes a new one; calls made with an old one are dropped, never retried under the new id.
 */
record Session(String workerId, String token, Map<String, WorkerConfig.Block> blocksById, int generation,
        AtomicBoolean next, AtomicBoolean progress) {

    Session(String workerId, String token, Map<String, WorkerConfig.Block> blocksById, int generation,
            boolean hasNext) {
        this(workerId, token, blocksById, generation, new AtomicBoolean(hasNext), new AtomicBoolean(true));
    }

    /** Whether progress reports are sent: no replica refused their path as unknown (it came after API 1.1). */
    boolean hasProgress() {
        return progress.get();
    }

    /** A replica refused the progress path as unknown (an older one): this session reports no more progress. */
    void progressMissing() {
        progress.set(false);
    }

    /** Whether pushes go by /next: the server registered with said 1.1 or newer, and no replica refused the path. */
    boolean hasNext() {
        return next.get();
    }

    /**
     * A replica refused /next as an unknown path (during a rolling upgrade, an older replica behind the same
     * address): this session pushes by /result from now on.
     */
    void nextMissing() {
        next.set(false);
    }

    /**
     * Whether a registration answer's {@code apiVersion} is 1.1 or newer. Servers before 1.1 answer "1"; one
     * that does not say is older still. An SDK must not call /next on them: their 404 for an unknown path would
     * read as "the worker was deleted".
     */
    static boolean hasNext(Object apiVersion) {
        if (!(apiVersion instanceof String version)) {
            return false;
        }
        String[] parts = version.trim().split("\\.");
        try {
            int major = Integer.parseInt(parts[0]);
            int minor = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
            return major > 1 || (major == 1 && minor >= 1);
        } catch (NumberFormatException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "worker " + workerId + " (registration " + generation + ")";
    }
}
