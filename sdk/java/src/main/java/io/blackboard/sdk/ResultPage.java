package io.blackboard.sdk;

import java.util.List;

/**
 * A page of the result feed: PUSHED jobs in push order, and the cursor to read on from ({@code next} is
 * always set; the same cursor again when nothing new came).
 */
public record ResultPage(List<Job> results, String next) {

    public ResultPage {
        results = List.copyOf(results);
    }
}
