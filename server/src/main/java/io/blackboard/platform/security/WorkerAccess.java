package io.blackboard.platform.security;

import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.stereotype.Component;

/**
 * Object-level authorization for worker calls: a worker token acts only for its own worker;
 * operators act for any. Controllers call it first thing, on the worker ids of the body. A direct
 * call rather than {@code @PreAuthorize}: method security evaluated SpEL and built a debug
 * message on every call, 8% of the server's CPU on the claim path (BENCHMARKS.md).
 */
@Component
public class WorkerAccess {

    /** Refuses (403) unless the caller may act as this worker. */
    public void requireMayActAs(UUID workerId) {
        requireMayActAsAll(List.of(workerId));
    }

    /** Refuses (403) unless the caller may act as every one of these workers. */
    public void requireMayActAsAll(Collection<UUID> workerIds) {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        if (!workerIds.stream().allMatch(id -> allowed(authentication, id))) {
            throw new AccessDeniedException("Access Denied");
        }
    }

    /**
     * Whether the caller acts as an operator: an operator's role token, not a worker's own token
     * nor the workers' registration token. For the record of who changed a worker.
     */
    public boolean callerIsOperator() {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        return authentication != null && !(authentication.getPrincipal() instanceof BearerTokenFilter.WorkerPrincipal)
                && authentication.getAuthorities().stream().anyMatch(a -> a.getAuthority().equals("ROLE_OPERATOR"));
    }

    static boolean allowed(Authentication authentication, UUID workerId) {
        if (authentication == null) {
            return false;
        }
        if (authentication.getPrincipal() instanceof BearerTokenFilter.WorkerPrincipal(UUID id)) {
            return id.equals(workerId);
        }
        return authentication.getAuthorities().stream().anyMatch(a -> a.getAuthority().equals("ROLE_OPERATOR"));
    }
}
