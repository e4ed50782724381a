package io.blackboard.ojs;

import org.springframework.http.HttpStatus;
import org.springframework.lang.Nullable;

/** A request the binding refuses, with the OJS error code and status it is answered with. */
final class OjsException extends RuntimeException {

    private final HttpStatus status;
    private final String code;
    private final @Nullable String type;
    private final @Nullable String hint;

    private OjsException(HttpStatus status, String code, @Nullable String type, String message, @Nullable String hint) {
        super(message);
        this.status = status;
        this.code = code;
        this.type = type;
        this.hint = hint;
    }

    /** The request is malformed: a missing or mistyped field (400 {@code invalid_request}). */
    static OjsException invalid(String message) {
        return new OjsException(HttpStatus.BAD_REQUEST, "invalid_request", "validation_error", message, null);
    }

    /** The body is no JSON (400 {@code invalid_payload}). */
    static OjsException payload(String message) {
        return new OjsException(HttpStatus.BAD_REQUEST, "invalid_payload", "validation_error", message, null);
    }

    /** Well-formed but not acceptable: a retry policy that cannot run (422). */
    static OjsException unprocessable(String message) {
        return new OjsException(HttpStatus.UNPROCESSABLE_CONTENT, "schema_validation", "validation_error", message,
                null);
    }

    static OjsException unsupported(String message) {
        return new OjsException(HttpStatus.UNPROCESSABLE_CONTENT, "unsupported", null, message, null);
    }

    static OjsException notFound(String what) {
        return new OjsException(HttpStatus.NOT_FOUND, "not_found", null, what + " not found",
                "check the id; ended jobs are kept for BLACKBOARD_JOB_RETENTION (7 days by default)");
    }

    /** The transition is not allowed from where the job stands (409 {@code conflict}). */
    static OjsException conflict(String message) {
        return new OjsException(HttpStatus.CONFLICT, "conflict", null, message, null);
    }

    static OjsException duplicate(String message) {
        return new OjsException(HttpStatus.CONFLICT, "duplicate", null, message, null);
    }

    HttpStatus status() {
        return status;
    }

    String code() {
        return code;
    }

    @Nullable String type() {
        return type;
    }

    @Nullable String hint() {
        return hint;
    }
}
