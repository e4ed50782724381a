package io.blackboard.sdk;

/**
 * The code behind one function block: a method per job type. Only {@link #execute} is required, so a lambda
 * will do for a block that only executes:
 *
 * <pre>{@code
 * FunctionBlock ping = ctx -> Outcome.success(Map.of("rttMs", probe(ctx.params().get("host"))));
 * }</pre>
 *
 * Each method runs on the worker's handler executor, one job per call, and may block (device sessions and
 * network libraries do). An exception it throws becomes a FAILURE push whose error is
 * {@code {"type": <exception class>, "message": ..., "stack": <truncated>}}. Once the job is cancelled
 * ({@link JobContext#isCancelled()}) nothing is pushed, whatever the method returns or throws.
 */
@FunctionalInterface
public interface FunctionBlock {

    /** An EXECUTE job: the block's work. */
    Outcome execute(JobContext ctx) throws Exception;

    /** An ACQUIRE job. By default a SUCCESS that acquires nothing ({@code "acquires": []}). */
    default Outcome acquire(JobContext ctx) throws Exception {
        return Outcome.acquired(java.util.List.of());
    }

    /**
     * A ROLLBACK job. By default a FAILURE {@code ROLLBACK_NOT_IMPLEMENTED}: a block that cannot undo must not
     * claim it did.
     */
    default Outcome rollback(JobContext ctx) throws Exception {
        return Outcome.failure("ROLLBACK_NOT_IMPLEMENTED",
                "function block " + ctx.functionBlockName() + " " + ctx.functionBlockVersion()
                        + " does not implement rollback");
    }

    /** Calls the method for the context's job type. */
    default Outcome dispatch(JobContext ctx) throws Exception {
        switch (ctx.type()) {
            case ACQUIRE:
                return acquire(ctx);
            case ROLLBACK:
                return rollback(ctx);
            default:
                return execute(ctx);
        }
    }
}
