import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * The driver's HTTP side: JSON over HTTP/1.1 keep-alive, a bearer token on every request.
 * <p>
 * The measured requests go through a minimal blocking HTTP/1.1 client over pooled sockets, not
 * the JDK's {@code HttpClient}: the driver shares the two cores with the server and PostgreSQL,
 * and the JDK client's asynchronous machinery (its selector thread, futures, URI parsing per
 * request) took about two thirds of the driver's CPU, 250 us of the machine per push + next
 * (BENCHMARKS.md), where {@code pgbench}, the raw ceilings' driver, is lean C. Requests are
 * written whole in one write; answers read by {@code Content-Length} or chunked. Parked long polls
 * ({@link #postAsync}) keep the JDK client: they measure the server's memory, not its speed.
 */
final class Http {

    record Response(int status, String body) {

        boolean ok() {
            return status >= 200 && status < 300;
        }
    }

    static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int CONNECT_TIMEOUT_MS = 5_000;
    /** Below the server's keep-alive timeout (3 s by default): an older idle connection is closed, not reused. */
    private static final long MAX_IDLE_NANOS = 2_000_000_000L;

    private final String base;
    private final String token;
    private final InetSocketAddress address;
    private final String host;
    private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
    private volatile HttpClient async;

    Http(String base, String token) {
        URI uri = URI.create(base);
        if (!"http".equals(uri.getScheme())) {
            throw new IllegalArgumentException("the driver speaks plain http only: " + base);
        }
        int port = uri.getPort() < 0 ? 80 : uri.getPort();
        this.base = base;
        this.token = token;
        this.address = new InetSocketAddress(uri.getHost(), port);
        this.host = uri.getHost() + ":" + port;
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
        return send("POST", path, json, workerToken, timeout);
    }

    Response get(String path) {
        return send("GET", path, null, null, TIMEOUT);
    }

    Response delete(String path) {
        return send("DELETE", path, null, null, TIMEOUT);
    }

    /** For requests that are meant to stay open (parked long polls), through the JDK's client. */
    CompletableFuture<HttpResponse<String>> postAsync(String path, String json, String workerToken,
            Duration timeout) {
        HttpClient client = async;
        if (client == null) {
            synchronized (this) {
                if (async == null) {
                    async = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                            .connectTimeout(Duration.ofMillis(CONNECT_TIMEOUT_MS)).build();
                }
                client = async;
            }
        }
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout)
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + (workerToken == null ? token : workerToken))
                .POST(HttpRequest.BodyPublishers.ofString(json)).build();
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    private Response send(String method, String path, String json, String workerToken, Duration timeout) {
        byte[] request = request(method, path, json, workerToken);
        int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
        try {
            while (true) {
                Connection connection = idle.pollFirst();
                boolean reused = connection != null;
                if (reused && System.nanoTime() - connection.lastUsed > MAX_IDLE_NANOS) {
                    connection.close();
                    continue;
                }
                if (!reused) {
                    connection = new Connection(address);
                }
                try {
                    Response response = connection.exchange(request, millis);
                    if (connection.open) {
                        connection.lastUsed = System.nanoTime();
                        idle.offerFirst(connection);
                    }
                    return response;
                } catch (Stale e) {
                    connection.close(); // the server closed it while idle: nothing was answered, send again
                    if (!reused) {
                        return new Response(-1, "the server closed a new connection without answering");
                    }
                } catch (IOException | RuntimeException e) {
                    connection.close();
                    throw e;
                }
            }
        } catch (IOException e) {
            return new Response(-1, String.valueOf(e));
        }
    }

    private byte[] request(String method, String path, String json, String workerToken) {
        byte[] body = json == null ? null : json.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder(256).append(method).append(' ').append(path).append(" HTTP/1.1\r\n")
                .append("Host: ").append(host).append("\r\n")
                .append("Authorization: Bearer ").append(workerToken == null ? token : workerToken).append("\r\n");
        if (body != null) {
            head.append("Content-Type: application/json\r\nContent-Length: ").append(body.length).append("\r\n");
        }
        byte[] headBytes = head.append("\r\n").toString().getBytes(StandardCharsets.UTF_8);
        if (body == null) {
            return headBytes;
        }
        byte[] all = new byte[headBytes.length + body.length];
        System.arraycopy(headBytes, 0, all, 0, headBytes.length);
        System.arraycopy(body, 0, all, headBytes.length, body.length);
        return all;
    }

    /** The connection was closed before any byte of an answer: the request was not answered. */
    private static final class Stale extends IOException {

        Stale() {
            super("closed before an answer");
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this; // an expected turn of a keep-alive connection, not a failure to trace
        }
    }

    /** One keep-alive connection, used by one request at a time. */
    private static final class Connection {

        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;
        volatile long lastUsed;
        boolean open = true;

        Connection(InetSocketAddress address) throws IOException {
            socket = new Socket();
            try {
                socket.setTcpNoDelay(true);
                socket.connect(address, CONNECT_TIMEOUT_MS);
                in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
                out = socket.getOutputStream();
            } catch (IOException e) {
                socket.close();
                throw e;
            }
        }

        Response exchange(byte[] request, int timeoutMillis) throws IOException {
            socket.setSoTimeout(timeoutMillis);
            try {
                out.write(request);
                out.flush();
            } catch (IOException e) {
                throw new Stale();
            }
            int first;
            try {
                first = in.read();
            } catch (SocketException e) { // reset: closed by the server before it read the request
                throw new Stale();
            }
            if (first < 0) {
                throw new Stale();
            }
            String statusLine = (char) first + line();
            // HTTP/1.1 200 OK
            if (statusLine.length() < 12 || !statusLine.startsWith("HTTP/1.")) {
                throw new IOException("not an HTTP answer: " + statusLine);
            }
            int status = Integer.parseInt(statusLine.substring(9, 12));
            long length = -1;
            boolean chunked = false;
            for (String header = line(); !header.isEmpty(); header = line()) {
                int colon = header.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = header.substring(colon + 1).trim();
                switch (name) {
                    case "content-length" -> length = Long.parseLong(value);
                    case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                    case "connection" -> open &= !value.equalsIgnoreCase("close");
                    default -> {
                    }
                }
            }
            String body;
            if (status == 204 || status == 304 || status / 100 == 1) {
                body = "";
            } else if (chunked) {
                body = chunkedBody();
            } else if (length >= 0) {
                byte[] bytes = in.readNBytes((int) length);
                if (bytes.length < length) {
                    throw new EOFException("the answer ended inside its body");
                }
                body = new String(bytes, StandardCharsets.UTF_8);
            } else { // the body runs to the end of the connection
                body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                open = false;
            }
            if (!open) {
                close();
            }
            return new Response(status, body);
        }

        private String chunkedBody() throws IOException {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            while (true) {
                String size = line();
                int semicolon = size.indexOf(';');
                int n = Integer.parseInt((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
                if (n == 0) {
                    while (!line().isEmpty()) { // trailers
                    }
                    return body.toString(StandardCharsets.UTF_8);
                }
                byte[] chunk = in.readNBytes(n);
                if (chunk.length < n) {
                    throw new EOFException("the answer ended inside a chunk");
                }
                body.write(chunk);
                line();
            }
        }

        /** One line without its CRLF; an end of stream inside it is an error. */
        private String line() throws IOException {
            StringBuilder line = new StringBuilder(64);
            while (true) {
                int b = in.read();
                if (b < 0) {
                    throw new EOFException("the answer ended inside its head");
                }
                if (b == '\n') {
                    int end = line.length();
                    if (end > 0 && line.charAt(end - 1) == '\r') {
                        line.setLength(end - 1);
                    }
                    return line.toString();
                }
                line.append((char) b);
            }
        }

        void close() {
            open = false;
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
