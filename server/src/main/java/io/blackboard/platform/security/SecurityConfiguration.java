package io.blackboard.platform.security;

import io.blackboard.platform.errors.ProblemHandler;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.security.Principal;
import java.util.UUID;
import java.util.function.Supplier;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authorization.AuthorizationDecision;
import org.springframework.security.authorization.AuthorizationManager;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.access.AccessDeniedHandler;
import org.springframework.security.web.access.intercept.RequestAuthorizationContext;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;
import org.springframework.security.web.context.RequestAttributeSecurityContextRepository;
import org.springframework.security.web.firewall.HttpFirewall;
import org.springframework.security.web.firewall.StrictHttpFirewall;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Who may call what (DESIGN.md section 7). Stateless bearer tokens; worker calls are further
 * bound to the caller's own worker, by path here and by body through {@link WorkerAccess}.
 */
@Configuration
class SecurityConfiguration {

    private static final String WORKER = "WORKER";
    private static final String ENGINE = "ENGINE";
    private static final String OPERATOR = "OPERATOR";
    private static final String BOUND_WORKER = "BOUND_WORKER";
    private static final String OJS_WORKER = "OJS_WORKER";

    @Bean
    SecurityFilterChain api(HttpSecurity http, RoleTokens roleTokens, WorkerTokenVerifier workerTokens,
            JsonMapper json) throws Exception {
        AuthenticationEntryPoint unauthorized = (request, response, e) -> write(response, json,
                ProblemHandler.problem(HttpStatus.UNAUTHORIZED, "unauthorized",
                        "A bearer token is required: " + e.getMessage()), true);
        AccessDeniedHandler forbidden = (request, response, e) -> write(response, json,
                ProblemHandler.problem(HttpStatus.FORBIDDEN, "forbidden",
                        "This token may not " + request.getMethod() + " " + request.getRequestURI()), false);
        http.csrf(csrf -> csrf.disable())
                .httpBasic(basic -> basic.disable())
                .formLogin(form -> form.disable())
                .logout(logout -> logout.disable())
                // No request cache: a 401 for a request that does not ask for JSON (a scrape, a
                // browser, curl) would otherwise save the request in a new HTTP session.
                .requestCache(cache -> cache.disable())
                // Stateless: the authentication lives for its request only, no session is ever
                // created, so neither the session filters nor the servlet API wrapper is needed
                // (each wraps or checks every request; BENCHMARKS.md in git history, "Where the time goes").
                // Without the wrapper, request.getUserPrincipal() and isUserInRole() know nothing
                // of the bearer token: read SecurityContextHolder (WorkerAccess does), and do not
                // use actuator's role-based options such as health's show-details: when-authorized
                // (the health endpoint alone gets them back: healthPrincipal below).
                .securityContext(context -> context.securityContextRepository(
                        new RequestAttributeSecurityContextRepository()))
                .sessionManagement(session -> session.disable())
                .servletApi(servletApi -> servletApi.disable())
                .exceptionHandling(handling -> handling.authenticationEntryPoint(unauthorized)
                        .accessDeniedHandler(forbidden))
                .addFilterBefore(new BearerTokenFilter(roleTokens, workerTokens, unauthorized),
                        AnonymousAuthenticationFilter.class)
                .authorizeHttpRequests(requests -> requests
                        .requestMatchers("/actuator/health", "/actuator/health/**", "/error").permitAll()
                        // The first rule that matches decides, and each is tried in turn: the
                        // workers' hot requests (push + next, polls, pushes, pings) come next. No
                        // rule after them matches what they match, so the order decides nothing else.
                        .requestMatchers(HttpMethod.POST, "/function-blocks/register", "/blackboard/job",
                                "/blackboard/job/result", "/blackboard/job/results", "/blackboard/job/next",
                                "/blackboard/job/progress")
                        .hasAnyRole(BOUND_WORKER, OPERATOR)
                        .requestMatchers(HttpMethod.POST, "/workers/{id}/ping", "/workers/{id}/unregister")
                        .access(sameWorker())
                        .requestMatchers(HttpMethod.GET, "/", "/index.html", "/dashboard.js", "/dashboard.css",
                                "/pages.js", "/history.js", "/history.css", "/vendor/**", "/favicon.ico",
                                "/v3/api-docs", "/v3/api-docs/**", "/swagger-ui.html", "/swagger-ui/**").permitAll()
                        // the other workers' requests
                        .requestMatchers(HttpMethod.POST, "/workers/register").hasAnyRole(WORKER, OPERATOR)
                        .requestMatchers(HttpMethod.GET, "/workers/online").hasRole(OPERATOR)
                        .requestMatchers(HttpMethod.GET, "/workers/{id}", "/workers/{id}/function-blocks",
                                "/workers/{id}/jobs", "/workers/{id}/events").access(sameWorker())
                        // the engine
                        .requestMatchers(HttpMethod.POST, "/blackboard/jobs", "/blackboard/jobs/*/cancel",
                                "/blackboard/jobs/cancel").hasRole(ENGINE)
                        .requestMatchers(HttpMethod.GET, "/blackboard/**", "/function-blocks", "/function-blocks/**")
                        .hasAnyRole(ENGINE, OPERATOR)
                        // the OJS binding (docs/ojs.md): its manifest and health are open, as the spec has them
                        .requestMatchers(HttpMethod.GET, "/ojs/manifest", "/ojs/v1/health").permitAll()
                        .requestMatchers(HttpMethod.POST, "/ojs/v1/workers/**").hasRole(OJS_WORKER)
                        .requestMatchers(HttpMethod.POST, "/ojs/v1/jobs", "/ojs/v1/jobs/batch").hasRole(ENGINE)
                        .requestMatchers(HttpMethod.DELETE, "/ojs/v1/jobs/*").hasRole(ENGINE)
                        .requestMatchers("/ojs/**").hasAnyRole(ENGINE, OPERATOR)
                        // everything else is the operators': lists, deletes, cleanup, directives, metrics
                        .anyRequest().hasRole(OPERATOR));
        return http.build();
    }

    /**
     * Spring Security's default firewall, but a query or form value holding a NUL is refused too:
     * PostgreSQL can neither store nor compare the character, so such a search was a 500
     * (ContractTest). The refusal is a 400 problem (ProblemHandler, or ContainerProblems before MVC).
     */
    @Bean
    HttpFirewall firewall() {
        StrictHttpFirewall firewall = new StrictHttpFirewall();
        firewall.setAllowedParameterValues(value -> value.indexOf('\0') < 0);
        return firewall;
    }

    /**
     * Health's show-components: when-authorized asks the servlet request for its principal and
     * roles; the chain keeps no servlet API wrapper (see above), so the health paths alone get a
     * wrapper that answers from the bearer token's authentication. After the security chain.
     */
    @Bean
    FilterRegistrationBean<OncePerRequestFilter> healthPrincipal() {
        OncePerRequestFilter filter = new OncePerRequestFilter() {
            @Override
            protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response,
                    FilterChain chain) throws ServletException, IOException {
                Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
                if (authentication == null || authentication instanceof AnonymousAuthenticationToken
                        || !authentication.isAuthenticated()) {
                    chain.doFilter(request, response);
                    return;
                }
                chain.doFilter(new HttpServletRequestWrapper(request) {
                    @Override
                    public Principal getUserPrincipal() {
                        return authentication;
                    }

                    @Override
                    public boolean isUserInRole(String role) {
                        return authentication.getAuthorities().stream()
                                .anyMatch(a -> a.getAuthority().equals("ROLE_" + role));
                    }
                }, response);
            }
        };
        FilterRegistrationBean<OncePerRequestFilter> registration = new FilterRegistrationBean<>(filter);
        registration.addUrlPatterns("/actuator/health", "/actuator/health/*");
        return registration;
    }

    /**
     * No observation of each security filter, authentication and authorization: wrapping every
     * filter of every request cost a tenth of the server's CPU on the claim path and deepened the
     * stack each parked long poll keeps (BENCHMARKS.md). http.server.requests still times requests.
     */
    @Bean
    SecurityObservationSettings securityObservationSettings() {
        return SecurityObservationSettings.noObservations();
    }

    /** Operators, or the worker whose id is in the path (an unreadable id is left to the controller: 400). */
    private static AuthorizationManager<RequestAuthorizationContext> sameWorker() {
        return (Supplier<? extends Authentication> authentication, RequestAuthorizationContext context) -> {
            String id = context.getVariables().get("id");
            UUID workerId;
            try {
                workerId = UUID.fromString(id);
            } catch (IllegalArgumentException e) {
                return new AuthorizationDecision(authentication.get().isAuthenticated()
                        && !"anonymousUser".equals(authentication.get().getPrincipal()));
            }
            return new AuthorizationDecision(WorkerAccess.allowed(authentication.get(), workerId));
        };
    }

    private static void write(HttpServletResponse response, JsonMapper json, ProblemDetail problem,
            boolean challenge) throws IOException {
        if (challenge) {
            response.setHeader("WWW-Authenticate", "Bearer");
        }
        ProblemHandler.write(response, json, problem);
    }
}
