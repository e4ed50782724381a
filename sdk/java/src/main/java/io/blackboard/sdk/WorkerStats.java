package io.blackboard.sdk;

/**
 * Counters of a worker since it was built, read with {@link BlackboardWorker#stats()}.
 *
 * @param jobsReceived jobs claimed by this worker's polls, and by its pushes that claimed the next job (API 1.1)
 * @param jobsSucceeded SUCCESS pushes the server accepted
 * @param jobsFailed FAILURE pushes the server accepted (thrown exceptions, {@code Outcome.failure},
 *     results the block's schema refused)
 * @param jobsCancelled jobs whose cancel flag was set before their push was accepted: nothing pushed for them
 * @param pushConflicts pushes answered 409: the claim was no longer this worker's, the result was dropped
 * @param schemaViolations SUCCESS pushes answered 422 (result schema) and turned into FAILURE pushes
 * @param pushesDropped results dropped for other reasons (the worker was forgotten, a 4xx on the FAILURE itself)
 * @param pushRetries pushes sent again after an I/O error, a 5xx, a 429 or a 503
 * @param polls poll requests sent
 * @param pings ping requests sent
 * @param reregistrations registrations after the first (the server had forgotten the worker)
 */
public record WorkerStats(long jobsReceived, long jobsSucceeded, long jobsFailed, long jobsCancelled,
        long pushConflicts, long schemaViolations, long pushesDropped, long pushRetries, long polls, long pings,
        long reregistrations) {
}
