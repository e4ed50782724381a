package io.blackboard.sdk.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class HttpTest {

    @Test
    void retry_after_in_seconds_or_as_a_date() {
        assertThat(Http.parseRetryAfter("1")).contains(Duration.ofSeconds(1));
        assertThat(Http.parseRetryAfter(" 120 ")).contains(Duration.ofSeconds(120));
        String inTenSeconds = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(10));
        assertThat(Http.parseRetryAfter(inTenSeconds).orElseThrow()).isBetween(Duration.ofSeconds(8), Duration.ofSeconds(10));
        assertThat(Http.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT")).contains(Duration.ZERO);
        assertThat(Http.parseRetryAfter("-1")).isEmpty();
        assertThat(Http.parseRetryAfter("soon")).isEmpty();
    }

    @Test
    void every_request_tells_the_server_how_long_its_answer_is_awaited() throws Exception {
        List<String> sent = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            sent.add(exchange.getRequestMethod() + " " + exchange.getRequestHeaders().getFirst(Http.TIMEOUT_HEADER));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        server.start();
        try {
            Http http = new Http(URI.create("http://localhost:" + server.getAddress().getPort()),
                    Http.defaultClient(Duration.ofSeconds(5), null), Duration.ofSeconds(30), "test");
            http.send("GET", "/workers", null, null);
            http.send("POST", "/blackboard/job", null, Map.of("waitMs", 20000), Duration.ofMillis(50_000));
            http.sendOnce("POST", "/blackboard/job/next", null, Map.of());
        } finally {
            server.stop(0);
        }
        assertThat(sent).containsExactly("GET 30000", "POST 50000", "POST 30000");
    }

    @Test
    void a_reply_describes_its_problem() {
        Http.Reply reply = new Http.Reply(404, "{\"type\":\"/problems/worker-not-found\",\"detail\":\"gone\"}",
                Optional.empty());
        assertThat(reply.describe()).isEqualTo("404 /problems/worker-not-found: gone");
        assertThat(new Http.Reply(502, "<html>bad gateway</html>", Optional.empty()).describe())
                .isEqualTo("502: <html>bad gateway</html>");
        assertThat(new Http.Reply(502, "<html>", Optional.empty()).problem()).isEqualTo(Map.of());
    }
}
