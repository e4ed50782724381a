package io.blackboard.worker;

/** Why a worker's held jobs are taken from it. */
public enum WorkerLoss {
    /** The worker went OFFLINE: missed heartbeats or unregistered. */
    WORKER_OFFLINE,
    /** The worker was deleted. */
    WORKER_DELETED
}
