package io.blackboard.platform.web;

import io.blackboard.platform.errors.ProblemHandler;
import io.blackboard.platform.sql.ConnectionDeadline;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.apache.coyote.Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Gives every request its {@link Caller}, stamped at arrival, before load shedding may make it
 * wait: the client's deadline counts from here. After the answer, flushes it and, when it could
 * not be written, runs what the request asked to undo then (claims handed to a lost answer).
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 5) // before LoadShedding: time queued there counts against the deadline
class CallerFilter extends OncePerRequestFilter {

    /** A day: a longer budget is a client bug. */
    static final long MAX_TIMEOUT_MS = TimeUnit.DAYS.toMillis(1);
    private static final Logger log = LoggerFactory.getLogger(CallerFilter.class);

    private final JsonMapper json;
    private final Caller.Counters counters;

    CallerFilter(JsonMapper json, MeterRegistry registry) {
        this.json = json;
        this.counters = new Caller.Counters(abandoned(registry, "deadline"), abandoned(registry, "disconnected"));
    }

    private static Counter abandoned(MeterRegistry registry, String reason) {
        return Counter.builder("blackboard.http.requests.abandoned").tag("reason", reason)
                .description("Requests refused or ended without work because their client's deadline passed "
                        + "or it closed its connection")
                .register(registry);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        long arrival = System.nanoTime();
        long budget;
        try {
            budget = budget(request.getHeader(Caller.TIMEOUT_HEADER));
        } catch (IllegalArgumentException e) {
            ProblemHandler.write(response, json, ProblemHandler.problem(HttpStatus.BAD_REQUEST, "invalid-request",
                    e.getMessage()));
            return;
        }
        Caller caller = new Caller(arrival, budget, (Request) request.getAttribute(ConnectionProbe.ATTRIBUTE),
                counters);
        request.setAttribute(Caller.ATTRIBUTE, caller);
        boolean answered = false;
        try {
            chain.doFilter(request, response);
            answered = true;
        } finally {
            ConnectionDeadline.clear(); // the undo below must get its connection, whatever the time
            if (!caller.undelivered().isEmpty() && !(answered && delivered(response, caller))) {
                undo(caller);
            }
        }
    }

    /** Flushes the answer: false when it could not be written in full. */
    private static boolean delivered(HttpServletResponse response, Caller caller) {
        try {
            response.flushBuffer();
        } catch (IOException e) {
            return false; // the client is gone: there is no one to tell
        }
        return !caller.failed();
    }

    /** Nanoseconds, or -1 without the header. */
    static long budget(String header) {
        if (header == null) {
            return -1;
        }
        String value = header.strip();
        if (value.isEmpty() || value.length() > 12 || !value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException(Caller.TIMEOUT_HEADER + " must be a whole number of milliseconds "
                    + "from 0 to " + MAX_TIMEOUT_MS + ", not \"" + abbreviate(value) + "\"");
        }
        long ms = Long.parseLong(value);
        if (ms > MAX_TIMEOUT_MS) {
            throw new IllegalArgumentException(Caller.TIMEOUT_HEADER + " must be at most " + MAX_TIMEOUT_MS
                    + " ms (a day), not " + ms);
        }
        return TimeUnit.MILLISECONDS.toNanos(ms);
    }

    private static String abbreviate(String value) {
        String shown = value.length() > 40 ? value.substring(0, 40) + "..." : value;
        return shown.replaceAll("[^\\x20-\\x7e]", "?");
    }

    private static void undo(Caller caller) {
        for (Runnable undo : caller.undelivered()) {
            try {
                undo.run();
            } catch (RuntimeException e) {
                log.warn("Could not undo the work of an answer that was not delivered: {}", e.toString());
            }
        }
    }
}
