package io.blackboard.worker;

import io.blackboard.platform.errors.ApiException;
import java.util.UUID;
import org.springframework.http.HttpStatus;

/** No such worker, or (for calls a live worker makes) a soft-deleted one: it should re-register. */
public class WorkerNotFound extends ApiException {

    public WorkerNotFound(UUID id) {
        super(HttpStatus.NOT_FOUND, "worker-not-found",
                "Worker " + id + " is not registered (unknown or deleted); register again");
    }
}
