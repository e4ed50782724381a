package io.blackboard.platform.errors;

import java.io.IOException;
import java.io.PrintWriter;
import org.apache.catalina.Lifecycle;
import org.apache.catalina.Valve;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import tools.jackson.databind.json.JsonMapper;

/**
 * What is refused before Spring MVC sees a request is a problem too. ContractTest found two
 * refusals that were not: a URL Spring Security's firewall refuses (an encoded percent, slash or
 * line break in the path) reached Spring Boot's error controller and was answered with its own
 * JSON, and one Tomcat itself cannot take (a NUL in the path, a request line longer than its
 * header buffer) was answered with Tomcat's HTML error page.
 */
@Configuration(proxyBeanMethods = false)
class ContainerProblems {

    /** Spring Security uses this bean for every request its firewall refuses. */
    @Bean
    RequestRejectedHandler rejectedRequestProblem(JsonMapper json) {
        return (request, response, e) -> ProblemHandler.write(response, json, ProblemHandler.problem(
                HttpStatus.BAD_REQUEST, "invalid-request", "The request was refused: " + e.getMessage()));
    }

    /** Tomcat's error report, for what fails before a servlet runs, replaced by a problem. */
    @Bean
    TomcatContextCustomizer problemReports() {
        return context -> context.addLifecycleListener(event -> {
            if (Lifecycle.BEFORE_START_EVENT.equals(event.getType())
                    && context.getParent() instanceof StandardHost host) {
                host.setErrorReportValveClass(ProblemReportValve.class.getName());
                for (Valve valve : host.getPipeline().getValves()) {
                    if (valve instanceof ErrorReportValve) {
                        host.getPipeline().removeValve(valve); // Spring Boot's, which writes HTML
                    }
                }
                host.getPipeline().addValve(new ProblemReportValve());
            }
        });
    }

    /** Writes the status Tomcat set as an RFC 9457 problem, without Tomcat's report or version. */
    public static final class ProblemReportValve extends ErrorReportValve {

        @Override
        protected void report(Request request, Response response, Throwable throwable) {
            int status = response.getStatus();
            if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
                return;
            }
            HttpStatus known = HttpStatus.resolve(status);
            String title = known == null ? "Error" : known.getReasonPhrase();
            try {
                response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
                response.setCharacterEncoding("UTF-8");
                PrintWriter writer = response.getReporter();
                if (writer != null) {
                    writer.write("{\"type\":\"/problems/" + (status == 400 ? "invalid-request" : "http-" + status)
                            + "\",\"title\":\"" + title + "\",\"status\":" + status
                            + ",\"detail\":\"The server refused this request before the API read it: " + title
                            + " (such as a malformed or too long request line or header)\"}");
                }
                response.finishResponse();
            } catch (IOException | IllegalStateException e) {
                // the connection is gone or the response committed: nothing more to say
            }
        }
    }
}
