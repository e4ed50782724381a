package io.blackboard.platform;

import java.util.Map;
import org.springframework.http.HttpStatus;

/**
 * A failure the client can act on. Rendered as an RFC 9457 problem whose {@code type}
 * names the kind of problem ({@code /problems/<kind>}); {@code properties} become
 * extension members of the problem.
 */
public abstract class ApiException extends RuntimeException {

    private final HttpStatus status;
    private final String kind;
    private final transient Map<String, Object> properties;

    protected ApiException(HttpStatus status, String kind, String detail) {
        this(status, kind, detail, Map.of());
    }

    protected ApiException(HttpStatus status, String kind, String detail, Map<String, Object> properties) {
        super(detail, null, false, false);
        this.status = status;
        this.kind = kind;
        this.properties = properties;
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
}
