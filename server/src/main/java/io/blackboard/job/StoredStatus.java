package io.blackboard.job;

/**
 * A job's status as stored: the API's {@link JobStatus} (PARKED included), and SCHEDULED, a PENDING job that may
 * not be claimed before its time. Having its own stored status keeps such a job out of the
 * claim's partial index ({@code status = 'PENDING'}), so no claim reads jobs that are not due.
 */
enum StoredStatus {
    SCHEDULED, PENDING, POLLED, PARKED, PUSHED;

    /** The status the API shows: a scheduled job is PENDING (with {@code scheduled}). */
    JobStatus shown() {
        return this == SCHEDULED ? JobStatus.PENDING : JobStatus.valueOf(name());
    }
}
