package io.blackboard.platform;

import java.util.Collection;
import java.util.UUID;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.stereotype.Component;

/**
 * Object-level authorization for worker calls: a worker token acts only for its own worker;
 * operators act for any. Used from {@code @PreAuthorize} as {@code @workerAccess}.
 */
@Component("workerAccess")
public class WorkerAccess {

    public boolean mayActAs(UUID workerId) {
        return allowed(SecurityContextHolder.getContext().getAuthentication(), workerId);
    }

    public boolean mayActAsAll(Collection<UUID> workerIds) {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        return workerIds.stream().allMatch(id -> allowed(authentication, id));
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
