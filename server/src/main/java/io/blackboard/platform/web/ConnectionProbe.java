package io.blackboard.platform.web;

import jakarta.servlet.ServletException;
import java.io.IOException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Hands each request Tomcat's own view of its connection, which the Servlet API does not give a
 * blocking request: {@link Caller#gone()} asks it whether the client is still there.
 */
@Configuration(proxyBeanMethods = false)
class ConnectionProbe {

    static final String ATTRIBUTE = ConnectionProbe.class.getName() + ".connection";

    @Bean
    TomcatContextCustomizer connectionProbeValve() {
        return context -> context.getPipeline().addValve(new Valve());
    }

    /** Puts the request's {@link org.apache.coyote.Request} in a request attribute. */
    static final class Valve extends ValveBase {

        Valve() {
            super(true);
        }

        @Override
        public void invoke(Request request, Response response) throws IOException, ServletException {
            request.setAttribute(ATTRIBUTE, request.getCoyoteRequest());
            getNext().invoke(request, response);
        }
    }
}
