package io.blackboard.worker;

/** {@code POST /workers/cleanup} and {@code /workers/cleanup-offline}: how many workers were soft-deleted. */
record CleanupResult(int deleted) {
}
