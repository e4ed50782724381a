import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** The driver's HTTP side: JSON over HTTP/1.1 keep-alive, a bearer token on every request. */
final class Http {

    record Response(int status, String body) {

        boolean ok() {
            return status >= 200 && status < 300;
        }
    }

    static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final HttpClient client;
    private final String base;
    private final String token;

    Http(String base, String token) {
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        this.base = base;
        this.token = token;
    }

    /** The server's base URL, for the worker processes the driver starts. */
    String base() {
        return base;
    }

    /** The run's token: the engine's, the operator's and the workers' enrolment token alike. */
    String token() {
        return token;
    }

    /** As the engine (or operator): the run's known token. */
    Response post(String path, String json) {
        return post(path, json, null, TIMEOUT);
    }

    /** As a worker: its own token when registration gave it one, else the run's token. */
    Response post(String path, String json, String workerToken, Duration timeout) {
        return send(request(path, timeout, workerToken).POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    Response get(String path) {
        return send(request(path, TIMEOUT, null).GET().build());
    }

    Response delete(String path) {
        return send(request(path, TIMEOUT, null).DELETE().build());
    }

    /** For requests that are meant to stay open (parked long polls). */
    CompletableFuture<HttpResponse<String>> postAsync(String path, String json, String workerToken,
            Duration timeout) {
        return client.sendAsync(
                request(path, timeout, workerToken).POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder request(String path, Duration timeout, String workerToken) {
        return HttpRequest.newBuilder(URI.create(base + path))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + (workerToken == null ? token : workerToken));
    }

    private Response send(HttpRequest request) {
        try {
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.body());
        } catch (IOException e) {
            return new Response(-1, String.valueOf(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Response(-2, "interrupted");
        }
    }
}
