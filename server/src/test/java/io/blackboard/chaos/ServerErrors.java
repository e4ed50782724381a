package io.blackboard.chaos;

import io.blackboard.Api;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The answers of a server under faults that are defects whatever the fault: any 5xx but 503,
 * and a 503 that does not say when to retry. A fault may refuse a request; it may not break one.
 */
final class ServerErrors {

    private final List<String> seen = new CopyOnWriteArrayList<>();

    Api.Response seen(Api.Response response) {
        int status = response.status();
        boolean retryable = status == 503 && response.headers().firstValue("Retry-After").isPresent();
        if (status >= 500 && !retryable) {
            seen.add(status + " " + response.raw());
        }
        return response;
    }

    List<String> list() {
        return List.copyOf(seen);
    }
}
