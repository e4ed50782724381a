package io.blackboard.job;

import java.util.List;

/** A page of jobs and the cursor of the next one (null on the last page). */
record JobPage(List<JobView> jobs, String next) {
}
