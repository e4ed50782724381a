package io.blackboard.platform.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Reads {@code Authorization: Bearer <token>}: a role token gives its roles; a worker token
 * (from registration) makes the caller that one worker. A token that is neither is 401 at once.
 */
class BearerTokenFilter extends OncePerRequestFilter {

    /** Who a worker-bound token speaks for. */
    record WorkerPrincipal(UUID workerId) {
    }

    static final String BOUND_WORKER = "ROLE_BOUND_WORKER";
    private static final List<GrantedAuthority> BOUND_WORKER_AUTHORITIES =
            List.of(new SimpleGrantedAuthority(BOUND_WORKER));

    /** The authorities of each set of roles a token has had: made once, not per request. */
    private final Map<Set<RoleTokens.Role>, List<GrantedAuthority>> authorities = new ConcurrentHashMap<>();

    private final RoleTokens roleTokens;
    private final WorkerTokenVerifier workerTokens;
    private final AuthenticationEntryPoint entryPoint;

    BearerTokenFilter(RoleTokens roleTokens, WorkerTokenVerifier workerTokens, AuthenticationEntryPoint entryPoint) {
        this.roleTokens = roleTokens;
        this.workerTokens = workerTokens;
        this.entryPoint = entryPoint;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String header = request.getHeader("Authorization");
        if (header == null || header.isBlank()) {
            chain.doFilter(request, response);
            return;
        }
        if (!header.regionMatches(true, 0, "Bearer ", 0, 7) || header.length() > 512) {
            entryPoint.commence(request, response, new BadCredentialsException("Use Authorization: Bearer <token>"));
            return;
        }
        String token = header.substring(7).trim();
        Optional<UsernamePasswordAuthenticationToken> authentication = authenticate(token);
        if (authentication.isEmpty()) {
            entryPoint.commence(request, response, new BadCredentialsException("Unknown or revoked token"));
            return;
        }
        SecurityContextHolder.getContext().setAuthentication(authentication.get());
        chain.doFilter(request, response);
    }

    private static List<GrantedAuthority> authoritiesOf(Set<RoleTokens.Role> roles) {
        return roles.stream().<GrantedAuthority>map(role -> new SimpleGrantedAuthority("ROLE_" + role.name()))
                .toList();
    }

    private Optional<UsernamePasswordAuthenticationToken> authenticate(String token) {
        if (token.startsWith(Tokens.WORKER_PREFIX)) {
            return workerTokens.verify(token).map(id -> UsernamePasswordAuthenticationToken.authenticated(
                    new WorkerPrincipal(id), null, BOUND_WORKER_AUTHORITIES));
        }
        Set<RoleTokens.Role> roles = roleTokens.rolesOf(token);
        if (roles.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(UsernamePasswordAuthenticationToken.authenticated("role-token", null,
                authorities.computeIfAbsent(roles, BearerTokenFilter::authoritiesOf)));
    }
}
