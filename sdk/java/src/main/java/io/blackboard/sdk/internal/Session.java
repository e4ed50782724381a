package io.blackboard.sdk.internal;

import io.blackboard.sdk.WorkerConfig;
import java.util.Map;

/**
 * One registration: the worker's id and token, and its function blocks by the ids the server gave them. A
 * re-registration makes a new one; calls made with an old one are dropped, never retried under the new id.
 */
record Session(String workerId, String token, Map<String, WorkerConfig.Block> blocksById, int generation) {

    @Override
    public String toString() {
        return "worker " + workerId + " (registration " + generation + ")";
    }
}
