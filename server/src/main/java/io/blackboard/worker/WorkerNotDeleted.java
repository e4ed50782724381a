package io.blackboard.worker;

import io.blackboard.platform.errors.ApiException;
import java.util.UUID;
import org.springframework.http.HttpStatus;

/**
 * A registration names as its {@code previousWorkerId} a worker that is still registered. Only a
 * deleted worker is replaced by a new registration; a live one comes back with a ping, with its
 * own token. Refused rather than recorded: either history would then tell a story that did not
 * happen.
 */
class WorkerNotDeleted extends ApiException {

    WorkerNotDeleted(UUID id) {
        super(HttpStatus.CONFLICT, "worker-not-deleted", "previousWorkerId " + id + " is a registered worker, "
                + "not a deleted one: a worker the server still knows pings again with its own token");
    }
}
