package io.blackboard.platform.web;

import io.blackboard.platform.errors.BodyTooLarge;
import io.blackboard.platform.errors.ProblemHandler;
import io.blackboard.platform.security.SecurityProperties;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.boot.jackson.autoconfigure.JsonFactoryBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.databind.json.JsonMapper;

/** Caps on what one request may make the server read: body size and JSON shape. */
@Configuration
class RequestLimits {

    @Bean
    JsonFactoryBuilderCustomizer jsonReadConstraints(SecurityProperties properties) {
        return builder -> builder.streamReadConstraints(StreamReadConstraints.builder()
                .maxNestingDepth(properties.maxJsonDepth())
                .maxStringLength(properties.maxJsonStringLength())
                .maxNameLength(1_000)
                .maxNumberLength(100)
                .maxDocumentLength(properties.maxBodySize().toBytes())
                .build());
    }

    @Bean
    BodySizeFilter bodySizeFilter(SecurityProperties properties, JsonMapper json) {
        return new BodySizeFilter(properties.maxBodySize().toBytes(), json);
    }

    /**
     * Refuses a declared oversize body before reading a byte of it, and stops reading an
     * undeclared (chunked) one at the cap.
     */
    @Order(Ordered.HIGHEST_PRECEDENCE)
    static final class BodySizeFilter extends OncePerRequestFilter {

        private final long max;
        private final JsonMapper json;

        BodySizeFilter(long max, JsonMapper json) {
            this.max = max;
            this.json = json;
        }

        @Override
        protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws ServletException, IOException {
            if (request.getContentLengthLong() > max) {
                response.setHeader("Connection", "close");
                ProblemHandler.write(response, json, ProblemHandler.problem(HttpStatus.CONTENT_TOO_LARGE,
                        "body-too-large", "The request body is larger than " + max + " bytes"));
                return;
            }
            chain.doFilter(new CappedRequest(request, max), response);
        }
    }

    private static final class CappedRequest extends HttpServletRequestWrapper {

        private final long max;
        private ServletInputStream stream;

        CappedRequest(HttpServletRequest request, long max) {
            super(request);
            this.max = max;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (stream == null) {
                stream = new CappedStream(super.getInputStream(), max);
            }
            return stream;
        }
    }

    private static final class CappedStream extends ServletInputStream {

        private final ServletInputStream in;
        private final long max;
        private long read;

        CappedStream(ServletInputStream in, long max) {
            this.in = in;
            this.max = max;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, length);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) throws BodyTooLarge {
            read += n;
            if (read > max) {
                throw new BodyTooLarge(max);
            }
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }
    }
}
