package io.blackboard.platform.security;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.web.access.WebInvocationPrivilegeEvaluator;
import org.springframework.stereotype.Component;

/**
 * Who the filter chain lets through to an endpoint, asked of the chain itself (its privilege
 * evaluator), so the OpenAPI document states the rules of {@link SecurityConfiguration} rather
 * than a copy of them that could drift.
 */
@Component
public class AccessRules {

    /** The kinds of bearer token, each a security scheme of the document. */
    public enum Caller {
        /** A role token of BLACKBOARD_WORKER_TOKENS: registers workers. */
        WORKER,
        /** The token a registration answers: acts for its own worker only. */
        WORKER_TOKEN,
        ENGINE,
        OPERATOR,
        OJS_WORKER
    }

    /** Stands in for the id in a path: a worker token is asked about its own worker. */
    private static final UUID SAMPLE = UUID.fromString("01a2011d-6ef8-77fd-9a3c-2b4e1f0a7c55");

    private final WebInvocationPrivilegeEvaluator chain;

    AccessRules(WebInvocationPrivilegeEvaluator chain) {
        this.chain = chain;
    }

    /** Whether a request without a token gets through (health, the manifest). */
    public boolean isPublic(String method, String pathTemplate) {
        Authentication anonymous = new AnonymousAuthenticationToken("docs", "anonymousUser",
                AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS"));
        return chain.isAllowed("", uri(pathTemplate), method, anonymous);
    }

    /** The kinds of token the chain lets through to {@code method pathTemplate}. */
    public Set<Caller> allowed(String method, String pathTemplate) {
        Set<Caller> allowed = EnumSet.noneOf(Caller.class);
        for (Caller caller : Caller.values()) {
            if (chain.isAllowed("", uri(pathTemplate), method, as(caller))) {
                allowed.add(caller);
            }
        }
        return allowed;
    }

    private static Authentication as(Caller caller) {
        if (caller == Caller.WORKER_TOKEN) {
            return UsernamePasswordAuthenticationToken.authenticated(new BearerTokenFilter.WorkerPrincipal(SAMPLE),
                    null, List.of(new SimpleGrantedAuthority(BearerTokenFilter.BOUND_WORKER)));
        }
        return UsernamePasswordAuthenticationToken.authenticated("role-token", null,
                List.of(new SimpleGrantedAuthority("ROLE_" + caller.name())));
    }

    private static String uri(String pathTemplate) {
        return pathTemplate.replaceAll("\\{[^}/]+}", SAMPLE.toString());
    }
}
