package io.blackboard.platform.web;

import io.blackboard.platform.errors.ProblemHandler;
import io.blackboard.platform.security.SecurityProperties;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.io.IOException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Bounds the requests in progress on this replica. With virtual threads no thread pool does:
 * under overload every request waits for a database connection while it keeps about 100 KB of
 * Tomcat buffers, until the heap is full and the JVM does nothing but collect (BENCHMARKS.md in git history,
 * "Overload"). Past the bound a request waits up to the queue wait for a slot, then is answered
 * 503 with {@code Retry-After}, having done nothing. The waiting requests are bounded too: past
 * {@code maxQueuedRequests} of them a request is answered at once, so a burst faster than the
 * queue wait drains cannot pile up either. And the request bodies in progress are bounded in
 * bytes: 200 requests at the 1 MB body cap, with the JSON trees parsed from them, would not fit
 * the heap. A body counts with its declared length, a chunked one with the body cap; a request
 * whose body does not fit is answered 503 before a byte of it is read (one body alone always
 * fits).
 * <p>Polls are bounded by the parked-poll cap instead (a parked poll must not hold a slot for
 * half a minute), and health, info and metrics always answer, so probes and scrapes still see
 * an overloaded replica.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 10) // after the http.server.requests observation: 503s are counted there too
class LoadShedding extends OncePerRequestFilter {

    /**
     * BLACKBOARD_MAX_CONCURRENT_REQUESTS, BLACKBOARD_MAX_QUEUED_REQUESTS,
     * BLACKBOARD_REQUEST_QUEUE_MS and BLACKBOARD_MAX_BODY_BYTES_IN_PROGRESS.
     */
    @Validated
    @ConfigurationProperties("blackboard.load")
    record Properties(@Min(1) int maxConcurrentRequests, @Min(0) int maxQueuedRequests,
            @NotNull @DurationUnit(ChronoUnit.MILLIS) Duration queueWait, @NotNull DataSize maxBodyBytesInProgress) {
    }

    private final Semaphore slots;
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong bodyBytes = new AtomicLong();
    private final long maxBodySize;
    private final Properties properties;
    private final JsonMapper json;
    private final Counter shed;

    LoadShedding(Properties properties, SecurityProperties limits, JsonMapper json, MeterRegistry registry) {
        this.properties = properties;
        this.maxBodySize = limits.maxBodySize().toBytes();
        this.json = json;
        this.slots = new Semaphore(properties.maxConcurrentRequests());
        this.shed = Counter.builder("blackboard.http.requests.shed")
                .description("Requests answered 503 because BLACKBOARD_MAX_CONCURRENT_REQUESTS were in progress")
                .register(registry);
        Gauge.builder("blackboard.http.requests.active", slots,
                        s -> properties.maxConcurrentRequests() - s.availablePermits())
                .description("Requests in progress that count against BLACKBOARD_MAX_CONCURRENT_REQUESTS")
                .register(registry);
        Gauge.builder("blackboard.http.requests.queued", queued, AtomicInteger::get)
                .description("Requests waiting for one of the BLACKBOARD_MAX_CONCURRENT_REQUESTS slots")
                .register(registry);
        Gauge.builder("blackboard.http.requests.body.bytes", bodyBytes, AtomicLong::get)
                .description("Declared body bytes of the requests in progress (BLACKBOARD_MAX_BODY_BYTES_IN_PROGRESS)")
                .baseUnit("bytes")
                .register(registry);
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String path = request.getRequestURI();
        return path.startsWith("/actuator/")
                || ("POST".equals(request.getMethod()) && "/blackboard/job".equals(path));
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (!slots.tryAcquire() && !awaitSlot()) {
            refuse(response, "This replica already has " + properties.maxConcurrentRequests()
                    + " requests in progress (BLACKBOARD_MAX_CONCURRENT_REQUESTS); nothing was done, retry shortly");
            return;
        }
        long body = declaredBody(request);
        boolean counted = false;
        try {
            counted = reserve(body);
            if (!counted) {
                refuse(response, "This replica already reads " + properties.maxBodyBytesInProgress().toBytes()
                        + " bytes of request bodies (BLACKBOARD_MAX_BODY_BYTES_IN_PROGRESS); nothing was done, retry shortly");
                return;
            }
            chain.doFilter(request, response);
        } finally {
            if (counted) {
                bodyBytes.addAndGet(-body);
            }
            slots.release();
        }
    }

    private void refuse(HttpServletResponse response, String detail) throws IOException {
        shed.increment();
        response.setHeader("Retry-After", "1");
        ProblemHandler.write(response, json,
                ProblemHandler.problem(HttpStatus.SERVICE_UNAVAILABLE, "overloaded", detail));
    }

    /** The body's declared length; a chunked body may be as large as the body cap. */
    private long declaredBody(HttpServletRequest request) {
        long length = request.getContentLengthLong();
        if (length >= 0) {
            return Math.min(length, maxBodySize);
        }
        return request.getHeader("Transfer-Encoding") != null ? maxBodySize : 0;
    }

    /** Counts a body against the bound; one body alone always fits, whatever the bound. */
    private boolean reserve(long body) {
        if (body == 0) {
            return true;
        }
        long max = properties.maxBodyBytesInProgress().toBytes();
        while (true) {
            long current = bodyBytes.get();
            if (current > 0 && current + body > max) {
                return false;
            }
            if (bodyBytes.compareAndSet(current, current + body)) {
                return true;
            }
        }
    }

    /** Waits up to the queue wait for a slot, unless too many requests wait already. */
    private boolean awaitSlot() {
        try {
            if (queued.incrementAndGet() > properties.maxQueuedRequests()) {
                return false;
            }
            return slots.tryAcquire(properties.queueWait().toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            queued.decrementAndGet();
        }
    }
}
