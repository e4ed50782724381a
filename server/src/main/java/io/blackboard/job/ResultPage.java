package io.blackboard.job;

import java.util.List;

/** A page of the result feed; follow {@code next} to read on. */
record ResultPage(List<JobView> results, String next) {
}
