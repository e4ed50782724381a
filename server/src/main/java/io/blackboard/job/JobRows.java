package io.blackboard.job;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.UUID;

/** The column list every job query selects, and its mapping to {@link JobView}. */
final class JobRows {

    /** Columns of table alias {@code j}; JSON as text so it is passed through unparsed. */
    static final String COLUMNS = """
            j.id, j.function_block_id, j.type, j.status, j.payload::text as payload, j.priority, j.max_attempts,
            j.attempt, j.worker_id, j.selector::text as selector, j.correlation_id, j.idempotency_key,
            j.created_at, j.polled_at, j.deadline, j.pushed_at, j.outcome, j.failure_reason,
            j.result::text as result, j.acquires::text as acquires, j.db_updates::text as db_updates,
            j.error::text as error, j.run_at, j.retry_policy::text as retry_policy, j.errors::text as errors,
            j.execution_timeout_ms, j.progress_percent, j.progress_message, j.progress_at
            """;

    private JobRows() {
    }

    static JobView view(ResultSet rs, int row) throws SQLException {
        StoredStatus status = StoredStatus.valueOf(rs.getString("status"));
        return new JobView(rs.getObject("id", UUID.class), rs.getObject("function_block_id", UUID.class),
                JobType.valueOf(rs.getString("type")), status.shown(),
                rs.getString("payload"), rs.getInt("priority"), rs.getInt("max_attempts"), rs.getInt("attempt"),
                rs.getObject("worker_id", UUID.class), rs.getString("selector"), rs.getString("correlation_id"),
                rs.getString("idempotency_key"), time(rs, "created_at"), time(rs, "polled_at"),
                time(rs, "deadline"), time(rs, "pushed_at"), outcome(rs.getString("outcome")),
                reason(rs.getString("failure_reason")), rs.getString("result"), rs.getString("acquires"),
                rs.getString("db_updates"), rs.getString("error"), status == StoredStatus.SCHEDULED, time(rs, "run_at"),
                rs.getString("retry_policy"), rs.getString("errors"), rs.getObject("execution_timeout_ms", Long.class),
                rs.getObject("progress_percent", Integer.class), rs.getString("progress_message"),
                time(rs, "progress_at"));
    }


    static JobProblems.JobState state(ResultSet rs) throws SQLException {
        return new JobProblems.JobState(StoredStatus.valueOf(rs.getString("status")).shown(), rs.getInt("attempt"),
                outcome(rs.getString("outcome")), reason(rs.getString("failure_reason")));
    }

    private static OffsetDateTime time(ResultSet rs, String column) throws SQLException {
        return rs.getObject(column, OffsetDateTime.class);
    }

    private static Outcome outcome(String value) {
        return value == null ? null : Outcome.valueOf(value);
    }

    private static FailureReason reason(String value) {
        return value == null ? null : FailureReason.valueOf(value);
    }
}
