package io.blackboard.platform.errors;

import java.net.URI;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * A failure the client can act on. Rendered as an RFC 9457 problem whose {@code type}
 * names the kind of problem ({@code /problems/<kind>}); {@code properties} become
 * extension members of the problem.
 */
public abstract class ApiException extends RuntimeException {

    private final HttpStatus status;
    private final String kind;
    private final transient Map<String, Object> properties;
    private final transient Map<String, String> headers;

    protected ApiException(HttpStatus status, String kind, String detail) {
        this(status, kind, detail, Map.of());
    }

    protected ApiException(HttpStatus status, String kind, String detail, Map<String, Object> properties) {
        this(status, kind, detail, properties, Map.of());
    }

    protected ApiException(HttpStatus status, String kind, String detail, Map<String, Object> properties,
            Map<String, String> headers) {
        super(detail, null, false, false);
        this.status = status;
        this.kind = kind;
        this.properties = properties;
        this.headers = headers;
    }

    public HttpStatus status() {
        return status;
    }

    public String kind() {
        return kind;
    }

    public Map<String, Object> properties() {
        return properties;
    }

    /** This failure as an RFC 9457 problem: {@code type} names its kind, properties become members. */
    public ProblemDetail toProblem() {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, getMessage());
        problem.setType(URI.create("/problems/" + kind));
        properties.forEach(problem::setProperty);
        return problem;
    }

    /** Response headers the problem needs, such as Retry-After. */
    public Map<String, String> headers() {
        return headers;
    }
}
