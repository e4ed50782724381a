package io.blackboard.operator;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Test sources only: remembers the last Authorization header each path received, so the
 * dashboard test can prove the page sends its token while the server does not check it yet.
 */
@Component
class AuthorizationRecorder extends OncePerRequestFilter {

    static final Map<String, String> LAST = new ConcurrentHashMap<>();

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String authorization = request.getHeader("Authorization");
        LAST.put(request.getRequestURI(), authorization == null ? "" : authorization);
        chain.doFilter(request, response);
    }
}
