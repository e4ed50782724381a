package io.blackboard.platform.web;

import org.springframework.boot.tomcat.TomcatConnectorCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What an open HTTP connection may cost. Tomcat gives every connection, idle or busy, a read and
 * a write buffer on the heap, 8 KB each by default: 8,000 connections (its default bound) held
 * 140 MB of a 256 MB heap when a benchmark client opened a connection per request the server
 * could not answer in time, and the replica died of it (BENCHMARKS.md in git history, "Overload"). Halved
 * here; the bound itself (BLACKBOARD_MAX_CONNECTIONS) and the keep-alive timeout
 * (BLACKBOARD_KEEP_ALIVE_TIMEOUT) are set in application.yml.
 * <p>Bodies and responses larger than a buffer pass through it in pieces, which costs a few
 * more system calls on a bulk create and nothing on the small requests of the hot paths.
 */
@Configuration(proxyBeanMethods = false)
class HttpConnections {

    static final int SOCKET_BUFFER_BYTES = 4096;

    @Bean
    TomcatConnectorCustomizer smallSocketBuffers() {
        return connector -> {
            connector.setProperty("socket.appReadBufSize", Integer.toString(SOCKET_BUFFER_BYTES));
            connector.setProperty("socket.appWriteBufSize", Integer.toString(SOCKET_BUFFER_BYTES));
        };
    }
}
