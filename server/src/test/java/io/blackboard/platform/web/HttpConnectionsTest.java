package io.blackboard.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.IntegrationTest;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.apache.catalina.connector.Connector;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.test.context.TestPropertySource;

/** An open connection is bounded in number, in buffer size and in how long it may sit idle. */
@TestPropertySource(properties = {"server.tomcat.max-connections=321", "server.tomcat.keep-alive-timeout=1s"})
class HttpConnectionsTest extends IntegrationTest {

    @Autowired
    WebServerApplicationContext context;

    @Test
    void theConnectorIsBoundedAndItsSocketBuffersAreSmall() {
        Connector connector = ((TomcatWebServer) context.getWebServer()).getTomcat().getConnector();
        assertThat(connector.getProperty("maxConnections")).isEqualTo(321);
        assertThat(connector.getProperty("socket.appReadBufSize")).hasToString("" + HttpConnections.SOCKET_BUFFER_BYTES);
        assertThat(connector.getProperty("socket.appWriteBufSize")).hasToString("" + HttpConnections.SOCKET_BUFFER_BYTES);
    }

    @Test
    void anIdleKeepAliveConnectionIsClosedAfterTheTimeoutAndABusyOneIsNot() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(20_000);
            InputStream in = socket.getInputStream();
            String request = "GET /actuator/health HTTP/1.1\r\nHost: localhost\r\n\r\n";
            for (int i = 0; i < 3; i++) { // kept alive while it is used
                socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
                assertThat(readResponse(in)).startsWith("HTTP/1.1 200");
                Thread.sleep(300);
            }
            long idleFrom = System.nanoTime();
            assertThat(in.read()).as("the server closed the idle connection").isEqualTo(-1);
            long idleMs = (System.nanoTime() - idleFrom) / 1_000_000;
            assertThat(idleMs).isBetween(500L, 10_000L);
        }
    }

    /** Reads one response with a Content-Length or chunked body, returning its head. */
    private static String readResponse(InputStream in) throws Exception {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            assertThat(b).as("response head").isNotEqualTo(-1);
            head.append((char) b);
        }
        String lower = head.toString().toLowerCase();
        if (lower.contains("transfer-encoding: chunked")) {
            while (true) {
                String size = readLine(in);
                int n = Integer.parseInt(size.trim(), 16);
                in.readNBytes(n + 2);
                if (n == 0) {
                    break;
                }
            }
        } else {
            int at = lower.indexOf("content-length:");
            int length = Integer.parseInt(lower.substring(at + 15, lower.indexOf("\r\n", at)).trim());
            in.readNBytes(length);
        }
        return head.toString();
    }

    private static String readLine(InputStream in) throws Exception {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            line.append((char) b);
        }
        return line.toString();
    }
}
