package io.blackboard.sdk;

/**
 * The server refused the worker or its function blocks for a reason retrying cannot fix: a registration token
 * it does not know (401) or that lacks the role (403), a description it rejects (400, 422), or a function block
 * whose {@code (name, version)} already exists with other schemas or flags (409: publish a new version).
 * {@link BlackboardWorker#run()} throws it; nothing is retried.
 */
public class RegistrationRejectedException extends BlackboardException {

    private final int status;

    public RegistrationRejectedException(int status, String message) {
        super(message);
        this.status = status;
    }

    /** The HTTP status that refused it. */
    public int status() {
        return status;
    }
}
