package io.blackboard.sdk.internal;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.Optional;

/**
 * The SDK's one way to talk HTTP: JSON in, {@link Reply} out, over the JDK's {@link HttpClient}. A request
 * that fails with an I/O error before any answer (other than a refused connection or a timeout) is sent
 * once more at once: the server closes idle keep-alive connections after 3 s, so a request written to a
 * connection it had just closed was never read.
 *
 * <p>Only the blocking {@code send} is used, and a call is aborted by interrupting its thread (the client then
 * cancels the exchange and closes its connection). {@code sendAsync} is avoided on purpose: on JDK 25 its
 * completion depends on the common {@code ForkJoinPool}, so an application that keeps that pool busy (or a
 * machine where its parallelism is 1) stalls it, request timeout included.
 */
public final class Http {

    private final URI base;
    private final HttpClient client;
    /**
     * Tells the server how long this client will wait for the answer (its request timeout), so
     * that it does no work for an answer nobody will read.
     */
    public static final String TIMEOUT_HEADER = "Blackboard-Timeout-Ms";

    private final Duration requestTimeout;
    private final String userAgent;

    public Http(URI base, HttpClient client, Duration requestTimeout, String userAgent) {
        String text = base.toString();
        this.base = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
        this.client = client;
        this.requestTimeout = requestTimeout;
        this.userAgent = userAgent;
    }

    public static HttpClient defaultClient(Duration connectTimeout, javax.net.ssl.SSLContext sslContext) {
        HttpClient.Builder builder = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER);
        if (sslContext != null) {
            builder.sslContext(sslContext);
        }
        return builder.build();
    }

    public URI base() {
        return base;
    }

    /** Sends and waits; see the class comment for the one silent resend. */
    public Reply send(String method, String path, String token, Object body) throws IOException, InterruptedException {
        return send(method, path, token, body, requestTimeout);
    }

    public Reply send(String method, String path, String token, Object body, Duration timeout)
            throws IOException, InterruptedException {
        HttpRequest request = request(method, path, token, body, timeout);
        try {
            return exchange(request);
        } catch (IOException e) {
            if (!resendable(e)) {
                throw e;
            }
            return exchange(request);
        }
    }

    /**
     * Sends once, without the silent resend: for a request that must not go twice as it is (a claim: if the
     * server did read it, the same request again would claim again). The caller decides what to resend.
     */
    public Reply sendOnce(String method, String path, String token, Object body)
            throws IOException, InterruptedException {
        return exchange(request(method, path, token, body, requestTimeout));
    }

    private Reply exchange(HttpRequest request) throws IOException, InterruptedException {
        return toReply(client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)));
    }

    /** An I/O error that may be the server closing an idle connection under the request. */
    public static boolean resendable(IOException e) {
        return !(e instanceof HttpTimeoutException) && !(e instanceof ConnectException)
                && !(e.getCause() instanceof ConnectException);
    }

    private HttpRequest request(String method, String path, String token, Object body, Duration timeout) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(timeout)
                .header(TIMEOUT_HEADER, Long.toString(timeout.toMillis()))
                .header("Accept", "application/json, application/problem+json")
                .header("User-Agent", userAgent);
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        if (body == null) {
            builder.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            builder.header("Content-Type", "application/json");
            builder.method(method, HttpRequest.BodyPublishers.ofString(
                    body instanceof String s ? s : Json.write(body), StandardCharsets.UTF_8));
        }
        return builder.build();
    }

    private static Reply toReply(HttpResponse<String> response) {
        return new Reply(response.statusCode(), response.body(),
                response.headers().firstValue("Retry-After").flatMap(Http::parseRetryAfter));
    }

    /** Delta-seconds or an HTTP date; a date in the past, or anything else, means "no hint". */
    static Optional<Duration> parseRetryAfter(String value) {
        String v = value.trim();
        try {
            long seconds = Long.parseLong(v);
            return seconds < 0 ? Optional.empty() : Optional.of(Duration.ofSeconds(seconds));
        } catch (NumberFormatException notSeconds) {
            try {
                ZonedDateTime at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME);
                Duration until = Duration.between(ZonedDateTime.now(at.getZone()), at);
                return until.isNegative() ? Optional.of(Duration.ZERO) : Optional.of(until);
            } catch (RuntimeException notDate) {
                return Optional.empty();
            }
        }
    }

    /** An answer: status, body text and the server's {@code Retry-After}, if any. */
    public record Reply(int status, String body, Optional<Duration> retryAfter) {

        public boolean ok() {
            return status >= 200 && status < 300;
        }

        /** An answer that says "nothing was done, try again": 5xx, 429, 408. */
        public boolean retryable() {
            return status >= 500 || status == 429 || status == 408;
        }

        /** The body as JSON (null when empty). */
        public Object json() {
            return body == null || body.isBlank() ? null : Json.parse(body);
        }

        /** The body as an RFC 9457 problem, or an empty map when it is not one. */
        public Map<String, Object> problem() {
            try {
                return Json.object(json());
            } catch (RuntimeException notJson) {
                return Map.of();
            }
        }

        /** "404 /problems/worker-not-found: detail", for logs and exceptions. */
        public String describe() {
            Map<String, Object> problem = problem();
            Object type = problem.get("type");
            Object detail = problem.get("detail");
            StringBuilder out = new StringBuilder().append(status);
            if (type != null) {
                out.append(' ').append(type);
            }
            if (detail != null) {
                out.append(": ").append(detail);
            } else if (problem.isEmpty() && body != null && !body.isBlank()) {
                out.append(": ").append(body.length() > 200 ? body.substring(0, 200) + "..." : body);
            }
            return out.toString();
        }
    }
}
