/**
 * Bearer tokens: role tokens for engines and operators, worker tokens bound to their worker
 * ({@link WorkerAccess}), the filter chain, and the hash every token is stored as.
 */
@NamedInterface("security")
package io.blackboard.platform.security;

import org.springframework.modulith.NamedInterface;
