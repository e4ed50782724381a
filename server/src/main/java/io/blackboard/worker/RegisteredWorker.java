package io.blackboard.worker;

import com.fasterxml.jackson.annotation.JsonUnwrapped;

/**
 * The answer to registration: the worker, the token every later call for it must carry, and
 * what a client adapts to: the server's version and API version, the heartbeat interval, the
 * orphan grace (how long after a lost poll answer a ping releases its claims) and the longest
 * poll wait.
 */
record RegisteredWorker(@JsonUnwrapped WorkerView worker, String token, String serverVersion, String apiVersion,
        long pingIntervalMs, long orphanGraceMs, int maxPollWaitMs) {
}
