package io.blackboard;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A small HTTP client for the tests: real requests to the running server, JSON in and out. */
public final class Api {

    public record Response(int status, String contentType, String raw, JsonNode body, HttpHeaders headers) {

        public JsonNode at(String pointer) {
            return body.at(pointer);
        }

        @Override
        public String toString() {
            return status + " " + raw;
        }
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** One client for every Api: connections are pooled and kept alive across tests and threads. */
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    /** Holds every role in the tests' configuration (see src/test/resources/application.properties). */
    public static final String ALL_ROLES = "test-all";

    private final String base;
    private final String token;
    private final Map<String, String> headers;
    private final Duration timeout;

    public Api(int port) {
        this("http://localhost:" + port, ALL_ROLES, Map.of(), Duration.ofSeconds(60));
    }

    private Api(String base, String token, Map<String, String> headers, Duration timeout) {
        this.base = base;
        this.token = token;
        this.headers = headers;
        this.timeout = timeout;
    }

    /** Where the server is, as {@code http://localhost:PORT}. */
    public String baseUrl() {
        return base;
    }

    /** The same server, called with another bearer token (null: none). */
    public Api as(String token) {
        return new Api(base, token, headers, timeout);
    }

    /** The same server, giving up on each answer after {@code timeout} (an IllegalStateException). */
    public Api within(Duration timeout) {
        return new Api(base, token, headers, timeout);
    }

    /** The same server, every request also sending this header. */
    public Api with(String name, String value) {
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(name, value);
        return new Api(base, token, Map.copyOf(more), timeout);
    }

    public static String json(Object value) {
        return JSON.writeValueAsString(value);
    }

    public Response get(String path) {
        return send("GET", path, null);
    }

    public Response post(String path, Object body) {
        return send("POST", path, body == null ? null : body instanceof String s ? s : json(body));
    }

    public Response put(String path, Object body) {
        return send("PUT", path, body instanceof String s ? s : json(body));
    }

    public Response delete(String path) {
        return send("DELETE", path, null);
    }

    /** A GET for a page that is not JSON (Prometheus text, HTML, JavaScript); the body stays raw. */
    public Response getText(String path) {
        return send("GET", path, null, "text/plain, text/html, */*");
    }

    public Response send(String method, String path, String body) {
        return send(method, path, body, "application/json, application/problem+json");
    }

    private Response send(String method, String path, String body, String accept) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(timeout)
                .header("Accept", accept);
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        headers.forEach(request::header);
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body));
        try {
            HttpResponse<String> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
            String raw = response.body();
            String contentType = response.headers().firstValue("Content-Type").orElse("");
            boolean json = contentType.isEmpty() || contentType.contains("json");
            JsonNode parsed = raw == null || raw.isBlank() || !json ? JSON.missingNode() : JSON.readTree(raw);
            return new Response(response.statusCode(), contentType, raw, parsed, response.headers());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
