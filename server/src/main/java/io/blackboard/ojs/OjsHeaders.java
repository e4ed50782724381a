package io.blackboard.ojs;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.UUID;
import java.util.regex.Pattern;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The headers every answer of the binding carries, before anything else runs (a refused token
 * included): {@code OJS-Version} and {@code X-Request-Id} (the caller's, when it sent a sane one).
 * A request for a major version of OJS other than 1 is refused.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 10)
class OjsHeaders extends OncePerRequestFilter {

    static final String VERSION = "1.0";
    static final String REQUEST_ID = OjsHeaders.class.getName() + ".requestId";
    static final MediaType OJS_JSON = MediaType.parseMediaType("application/openjobspec+json");
    private static final Pattern SANE_ID = Pattern.compile("[A-Za-z0-9._:-]{1,100}");

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !request.getRequestURI().startsWith("/ojs/");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String given = request.getHeader("X-Request-Id");
        String id = given != null && SANE_ID.matcher(given).matches() ? given : "req_" + UUID.randomUUID();
        request.setAttribute(REQUEST_ID, id);
        response.setHeader("X-Request-Id", id);
        response.setHeader("OJS-Version", VERSION);
        String asked = request.getHeader("OJS-Version");
        if (asked != null && !asked.isBlank() && !asked.trim().startsWith("1")) {
            response.setStatus(422);
            response.setContentType(OJS_JSON.toString());
            response.getWriter().write("{\"error\":{\"code\":\"unsupported\",\"message\":\"OJS-Version "
                    + asked.replaceAll("[^0-9.]", "") + " is not supported; this server speaks 1.0\","
                    + "\"retryable\":false,\"request_id\":\"" + id + "\"}}");
            return;
        }
        chain.doFilter(request, response);
    }
}
