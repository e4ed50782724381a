package io.blackboard.sdk;

/** What a job asks of its function block; each type is dispatched to its own method of {@link FunctionBlock}. */
public enum JobType {
    /** Lock resources and name what else is needed: {@link FunctionBlock#acquire(JobContext)}. */
    ACQUIRE,
    /** The block's work: {@link FunctionBlock#execute(JobContext)}. */
    EXECUTE,
    /** Undo it: {@link FunctionBlock#rollback(JobContext)}. */
    ROLLBACK
}
