package io.blackboard.platform.web;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.validation.Validator;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.filter.ServerHttpObservationFilter;
import org.springframework.web.util.UriUtils;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Answers the hottest endpoints ({@link DirectRoute}s: a poll, a busy worker's push + next, a
 * push, a batch push, a heartbeat, a create) without Spring MVC: after the security chain, the body is read, validated and handed to the controller
 * method, and its answer written, without the dispatcher's handler look-up, argument resolution,
 * content negotiation and message converters, which took more of the server's CPU per round trip
 * than the controller and its transaction (BENCHMARKS.md). The filters around it (the client's
 * deadline, load shedding, body limits, security, the {@code http.server.requests} observation)
 * run as for every request.
 * <p>
 * It answers only the plain case: a POST with a declared body of at most 64 KiB of UTF-8 JSON
 * that reads and validates, from a client that accepts {@code application/json}, whose handler
 * answers (its status 200, or a {@code ResponseEntity}'s status, headers and body). Everything
 * else goes on to Spring MVC unchanged, the body read again from what was read here, so every refusal keeps its one form: an unreadable or invalid body, another media
 * type, and the handler's own exceptions (the controller method rethrows those first thing:
 * {@link #rethrowDirectFailure}, so nothing runs twice).
 */
@Component
@Order(0) // after the security chain (-100) and every filter before it
public class DirectRoutes extends OncePerRequestFilter {

    /** Bodies above this, or of undeclared length, go to Spring MVC: the hot bodies are far smaller. */
    static final int MAX_DIRECT_BODY = 64 * 1024;
    private static final String FAILURE = DirectRoutes.class.getName() + ".failure";

    private record Prepared(DirectRoute<Object> route, ObjectReader reader, ObjectWriter writer) {
    }

    /** The routes by path; those with variables ({@code /workers/{id}/ping}) by pattern, matched in turn. */
    private final Map<String, Prepared> routes;
    private final List<Prepared> patterns;
    /** For a {@code ResponseEntity}'s body, by its own type. */
    private final ObjectWriter anyType;
    private final Validator validator;
    private final Counter answered;

    @SuppressWarnings("unchecked")
    DirectRoutes(ObjectProvider<DirectRoute<?>> routes, JsonMapper json, Validator validator, MeterRegistry registry) {
        List<Prepared> prepared = routes.orderedStream().map(route -> (DirectRoute<Object>) route)
                .map(route -> new Prepared(route, json.readerFor(json.getTypeFactory().constructType(route.body())),
                        json.writerFor(route.answer())))
                .toList();
        this.routes = prepared.stream().filter(route -> !route.route().path().contains("{"))
                .collect(Collectors.toUnmodifiableMap(route -> route.route().path(), route -> route));
        this.patterns = prepared.stream().filter(route -> route.route().path().contains("{")).toList();
        this.anyType = json.writer();
        this.validator = validator;
        this.answered = Counter.builder("blackboard.http.requests.direct")
                .description("Requests of the hot endpoints answered without Spring MVC (the others of those "
                        + "endpoints, refusals among them, went through it)")
                .register(registry);
    }

    /**
     * The first thing a direct route's controller method runs when Spring MVC calls it: the
     * exception its direct call threw, so that Spring MVC answers it as it answers any.
     */
    public static void rethrowDirectFailure(HttpServletRequest request) {
        Object failure = request.getAttribute(FAILURE);
        request.removeAttribute(FAILURE);
        if (failure instanceof Error error) {
            throw error;
        }
        if (failure instanceof RuntimeException exception) {
            throw exception;
        }
    }

    private Prepared route(String path) {
        Prepared route = routes.get(path);
        if (route == null) {
            for (Prepared pattern : patterns) {
                if (matches(pattern.route().path(), path)) {
                    return pattern;
                }
            }
        }
        return route;
    }

    /** Whether the path has the pattern's segments, each variable ({@code {id}}) one non-empty segment. */
    static boolean matches(String pattern, String path) {
        int p = 0;
        int q = 0;
        while (p < pattern.length() && q < path.length()) {
            if (pattern.charAt(p) == '{') {
                int end = path.indexOf('/', q);
                end = end < 0 ? path.length() : end;
                if (end == q) {
                    return false; // an empty segment
                }
                p = pattern.indexOf('}', p) + 1;
                q = end;
            } else if (pattern.charAt(p++) != path.charAt(q++)) {
                return false;
            }
        }
        return p == pattern.length() && q == path.length();
    }

    /**
     * The path's segment at this index ({@code 2}: the id of {@code /workers/{id}/ping}), for a
     * handler: percent-decoded, as Spring MVC decodes a path variable.
     */
    public static String segment(HttpServletRequest request, int index) {
        String[] segments = request.getRequestURI().split("/", -1);
        return index < segments.length ? UriUtils.decode(segments[index], StandardCharsets.UTF_8) : "";
    }

    /**
     * Thrown by a handler before it does anything, for a request it leaves to Spring MVC as it
     * came (a path variable it cannot read, say): no failure is kept for the controller.
     */
    public static final class Declined extends RuntimeException {

        public Declined() {
            super(null, null, false, false);
        }
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Prepared prepared = "POST".equals(request.getMethod()) ? route(request.getRequestURI()) : null;
        long length = request.getContentLengthLong();
        if (prepared == null || length < 0 || length > MAX_DIRECT_BODY || !jsonInUtf8(request.getContentType())
                || !acceptsJson(accept(request))) {
            chain.doFilter(request, response);
            return;
        }
        byte[] body;
        try {
            body = request.getInputStream().readNBytes((int) length);
        } catch (IOException e) {
            chain.doFilter(new ReadAgain(request, null, e), response); // answered as Spring MVC answers it
            return;
        }
        HttpServletRequest again = new ReadAgain(request, body, null);
        Object value;
        try {
            value = prepared.reader().readValue(body);
        } catch (JacksonException e) {
            chain.doFilter(again, response);
            return;
        }
        if (value == null || !valid(value)) {
            chain.doFilter(again, response);
            return;
        }
        int status = HttpServletResponse.SC_OK;
        HttpHeaders headers = HttpHeaders.EMPTY;
        byte[] written;
        try {
            Object answer = prepared.route().handler().answer(value, request);
            if (answer instanceof ResponseEntity<?> entity) {
                status = entity.getStatusCode().value();
                headers = entity.getHeaders();
                written = entity.getBody() == null ? null : anyType.writeValueAsBytes(entity.getBody());
            } else {
                written = prepared.writer().writeValueAsBytes(answer);
            }
        } catch (Declined declined) {
            chain.doFilter(again, response);
            return;
        } catch (RuntimeException | Error e) {
            // the handler's refusal (or an answer that cannot be written): Spring MVC answers it
            request.setAttribute(FAILURE, e);
            chain.doFilter(again, response);
            return;
        }
        ServerHttpObservationFilter.findObservationContext(request)
                .ifPresent(context -> context.setPathPattern(prepared.route().path()));
        answered.increment(); // before the answer goes out: a client that reads the counter then sees it
        write(response, status, headers, written);
    }

    /**
     * Valid as {@code @Valid} finds it, a list as {@code List<@Valid @NotNull T>}: each item; a
     * value the validator cannot judge is left to Spring MVC too.
     */
    private boolean valid(Object value) {
        try {
            if (value instanceof List<?> items) {
                for (Object item : items) {
                    if (item == null || !validator.validate(item).isEmpty()) {
                        return false;
                    }
                }
                return true;
            }
            return validator.validate(value).isEmpty();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Every Accept header line, as Spring MVC reads them: joined by commas. */
    private static String accept(HttpServletRequest request) {
        String first = request.getHeader("Accept");
        if (first == null) {
            return null;
        }
        Enumeration<String> lines = request.getHeaders("Accept");
        lines.nextElement();
        if (!lines.hasMoreElements()) {
            return first;
        }
        StringBuilder all = new StringBuilder(first);
        while (lines.hasMoreElements()) {
            all.append(',').append(lines.nextElement());
        }
        return all.toString();
    }

    /** As Spring MVC writes an answer: JSON, its length declared; no body, no content type. */
    private static void write(HttpServletResponse response, int status, HttpHeaders headers, byte[] body)
            throws IOException {
        response.setStatus(status);
        headers.forEach((name, values) -> values.forEach(value -> response.addHeader(name, value)));
        if (body == null) {
            return;
        }
        response.setContentType("application/json");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /** {@code application/json}, in UTF-8 (the default); any other type or charset is Spring MVC's to judge. */
    static boolean jsonInUtf8(String contentType) {
        if (contentType == null) {
            return false;
        }
        String[] parts = contentType.split(";");
        if (!parts[0].strip().equalsIgnoreCase("application/json")) {
            return false;
        }
        for (int i = 1; i < parts.length; i++) {
            String parameter = parts[i].strip().toLowerCase(Locale.ROOT);
            if (!parameter.equals("charset=utf-8") && !parameter.equals("charset=\"utf-8\"")) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether Spring MVC would answer {@code application/json} too: no Accept header, or one of
     * {@code application/json}, {@code application/problem+json} and {@code *}{@code /*} without
     * parameters, JSON named before the problem type or only {@code *}{@code /*}. Anything else
     * (qualities, other types) is Spring MVC's to negotiate.
     */
    static boolean acceptsJson(String accept) {
        if (accept == null || accept.isBlank()) {
            return true;
        }
        boolean json = false;
        boolean anything = false;
        for (String entry : accept.split(",")) {
            switch (entry.strip().toLowerCase(Locale.ROOT)) {
                case "application/json" -> json = true;
                case "*/*" -> anything = true;
                case "application/problem+json" -> {
                    if (!json) {
                        return false;
                    }
                }
                default -> {
                    return false;
                }
            }
        }
        return json || anything;
    }

    /** The request with its body to read again: the bytes read here, or the failure reading them. */
    private static final class ReadAgain extends HttpServletRequestWrapper {

        private final byte[] body;
        private final IOException failure;
        private ServletInputStream stream;

        ReadAgain(HttpServletRequest request, byte[] body, IOException failure) {
            super(request);
            this.body = body;
            this.failure = failure;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (failure != null) {
                throw failure;
            }
            if (stream == null) {
                stream = new Bytes(new ByteArrayInputStream(body));
            }
            return stream;
        }

        @Override
        public BufferedReader getReader() throws IOException {
            return new BufferedReader(new InputStreamReader(getInputStream(), StandardCharsets.UTF_8));
        }
    }

    private static final class Bytes extends ServletInputStream {

        private final ByteArrayInputStream in;

        Bytes(ByteArrayInputStream in) {
            this.in = in;
        }

        @Override
        public int read() {
            return in.read();
        }

        @Override
        public int read(byte[] buffer, int offset, int length) {
            return in.read(buffer, offset, length);
        }

        @Override
        public boolean isFinished() {
            return in.available() == 0;
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
            throw new IllegalStateException("the body was read already");
        }
    }
}
