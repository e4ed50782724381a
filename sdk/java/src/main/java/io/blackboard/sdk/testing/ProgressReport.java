package io.blackboard.sdk.testing;

/**
 * A progress report that reached the (pretend) server: what {@link TestJobContext#progressReports()} lists.
 *
 * @param percent 0-100
 * @param message null when the handler gave none; cut to 200 characters as a worker cuts it
 */
public record ProgressReport(int percent, String message) {
}
