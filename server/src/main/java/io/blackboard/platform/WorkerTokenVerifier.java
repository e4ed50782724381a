package io.blackboard.platform;

import java.util.Optional;
import java.util.UUID;

/**
 * Resolves a worker-bound bearer token to the worker it was issued to. Declared here,
 * implemented by the worker registry, which keeps the token hashes.
 */
public interface WorkerTokenVerifier {

    /** The worker the token belongs to, or empty when it belongs to no registered worker. */
    Optional<UUID> verify(String token);
}
