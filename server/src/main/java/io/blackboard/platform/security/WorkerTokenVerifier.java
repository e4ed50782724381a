package io.blackboard.platform.security;

import java.util.Optional;
import java.util.UUID;

/**
 * Resolves a worker-bound bearer token to the worker it was issued to. Declared here,
 * implemented by the worker registry, which keeps the token hashes.
 */
public interface WorkerTokenVerifier {

    /**
     * The worker the token was issued to, deleted or not (calls for a deleted worker answer 404),
     * or empty when no worker was ever issued it.
     */
    Optional<UUID> verify(String token);
}
