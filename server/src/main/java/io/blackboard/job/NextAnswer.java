package io.blackboard.job;

import java.util.List;

/** The answer to {@code POST /blackboard/job/next}: each push answered as in a batch push, then the jobs claimed. */
record NextAnswer(List<PushOutcome> results, List<JobView> jobs) {
}
