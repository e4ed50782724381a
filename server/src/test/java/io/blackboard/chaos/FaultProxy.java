package io.blackboard.chaos;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * An HTTP/1.1 proxy between worker processes and a server, as a network would sit between them:
 * it records every request (method, path, when, the answer's status), and on demand lets the
 * server process a request but drops its answer (the connection closes, as a network failure
 * would), so a client must find out by itself what became of it. Like a network, it does not
 * tell the server when a client closes its connection early: a poll a client gave up on still
 * runs to its end on the server (the worker's next ping releases what it claimed).
 */
final class FaultProxy implements AutoCloseable {

    /** One request that went through, with its body. {@code status} is -1 when its answer was dropped or never came. */
    record Seen(String method, String path, long atNanos, int status, String retryAfter, String body) {
    }

    private final ServerSocket server;
    private final int upstreamPort;
    private final HttpClient upstream = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final List<Socket> clients = new CopyOnWriteArrayList<>();
    private final AtomicInteger answersToDrop = new AtomicInteger();
    private volatile Predicate<String> dropWhen = path -> false;

    FaultProxy(int upstreamPort) throws IOException {
        this.upstreamPort = upstreamPort;
        this.server = new ServerSocket(0);
        threads.submit(this::accept);
    }

    int port() {
        return server.getLocalPort();
    }

    String url() {
        return "http://localhost:" + port();
    }

    /** The server processes the next {@code count} requests to a path that matches, and their answers are lost. */
    void dropAnswers(int count, Predicate<String> path) {
        dropWhen = path;
        answersToDrop.set(count);
    }

    List<Seen> seen() {
        return List.copyOf(seen);
    }

    /** Requests to exactly this method and path that started at or after {@code sinceNanos}. */
    List<Seen> seen(String method, String path, long sinceNanos) {
        return seen.stream().filter(s -> s.method().equals(method) && s.path().equals(path)
                && s.atNanos() - sinceNanos >= 0).toList();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                clients.add(client);
                threads.submit(() -> serve(client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket client) {
        try (client) {
            InputStream in = client.getInputStream();
            OutputStream out = client.getOutputStream();
            while (true) {
                String requestLine = line(in);
                if (requestLine == null || requestLine.isEmpty()) {
                    return;
                }
                String[] parts = requestLine.split(" ");
                Map<String, String> headers = headers(in);
                byte[] body = in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0")));
                long at = System.nanoTime();
                String path = parts[1];
                HttpResponse<byte[]> answer = forward(parts[0], path, headers, body);
                boolean drop = answer != null && dropWhen.test(path.replaceAll("\\?.*", ""))
                        && answersToDrop.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
                seen.add(new Seen(parts[0], path.replaceAll("\\?.*", ""), at,
                        answer == null || drop ? -1 : answer.statusCode(),
                        answer == null ? null : answer.headers().firstValue("Retry-After").orElse(null),
                        new String(body, StandardCharsets.UTF_8)));
                if (answer == null || drop) {
                    return; // the client sees its connection close without an answer
                }
                write(out, answer);
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    /** Sends the request on; null when the server did not answer (it is down, say). */
    private HttpResponse<byte[]> forward(String method, String path, Map<String, String> headers, byte[] body)
            throws IOException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + upstreamPort + path))
                .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        for (String name : List.of("authorization", "content-type", "accept")) {
            if (headers.containsKey(name)) {
                request.header(name, headers.get(name));
            }
        }
        try {
            return upstream.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static void write(OutputStream out, HttpResponse<byte[]> answer) throws IOException {
        StringBuilder head = new StringBuilder("HTTP/1.1 ").append(answer.statusCode()).append(" X\r\n");
        for (String name : List.of("content-type", "retry-after", "www-authenticate", "location")) {
            answer.headers().firstValue(name).ifPresent(v -> head.append(name).append(": ").append(v).append("\r\n"));
        }
        head.append("content-length: ").append(answer.body().length).append("\r\n\r\n");
        out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.write(answer.body());
        out.flush();
    }

    private static Map<String, String> headers(InputStream in) throws IOException {
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line = line(in); line != null && !line.isEmpty(); line = line(in)) {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
        }
        return headers;
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b >= 0; b = in.read()) {
            if (b == '\n') {
                String text = line.toString(StandardCharsets.ISO_8859_1);
                return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
            }
            line.write(b);
        }
        return line.size() == 0 ? null : line.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket client : new ArrayList<>(clients)) {
            client.close();
        }
        threads.shutdownNow();
        upstream.close();
    }
}
