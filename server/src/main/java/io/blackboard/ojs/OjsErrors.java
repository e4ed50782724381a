package io.blackboard.ojs;

import io.blackboard.platform.errors.BodyTooLarge;
import io.blackboard.platform.errors.ExceptionUtils;
import io.blackboard.platform.errors.ProblemHandler;
import io.blackboard.platform.web.Caller;
import jakarta.servlet.http.HttpServletRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.TypeMismatchException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.web.ErrorResponse;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The binding's errors in OJS's envelope, {@code {"error": {code, message, retryable,
 * request_id, ...}}}, instead of the native API's RFC 9457 problems: only for its controllers.
 */
@RestControllerAdvice(basePackageClasses = OjsController.class)
@Order(Ordered.HIGHEST_PRECEDENCE)
class OjsErrors {

    private static final Logger log = LoggerFactory.getLogger(OjsErrors.class);
    static final String DOCS = "https://github.com/blackboard/blackboard/blob/main/docs/ojs.md";

    private final JsonMapper json;

    OjsErrors(JsonMapper json) {
        this.json = json;
    }

    @ExceptionHandler(OjsException.class)
    ResponseEntity<ObjectNode> refused(OjsException e, HttpServletRequest request) {
        ObjectNode error = envelope(e.code(), e.getMessage(), false, request);
        if (e.type() != null) {
            error.put("type", e.type());
        }
        if (e.hint() != null) {
            error.put("hint", e.hint());
            error.put("docs_url", DOCS);
        }
        return answer(e.status(), error);
    }

    /**
     * The client's deadline ({@code Blackboard-Timeout-Ms}) passed, or it closed its connection,
     * before the work began: nothing was done, and nobody may read this answer.
     */
    @ExceptionHandler(Caller.AnswerUnwanted.class)
    ResponseEntity<ObjectNode> unwanted(Caller.AnswerUnwanted e, HttpServletRequest request) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header("Retry-After", "1")
                .contentType(OjsHeaders.OJS_JSON)
                .body(wrap(envelope("backend_error", e.getMessage(), true, request)));
    }

    /** PostgreSQL unreachable or the pool exhausted: the request may be repeated. */
    @ExceptionHandler({DataAccessResourceFailureException.class, TransientDataAccessException.class,
            CannotCreateTransactionException.class})
    ResponseEntity<ObjectNode> backendDown(Exception e, HttpServletRequest request) {
        Caller.AnswerUnwanted unwanted = ExceptionUtils.find(e, Caller.AnswerUnwanted.class);
        if (unwanted != null) {
            return unwanted(unwanted, request); // refused as its connection was handed out
        }
        log.warn("OJS {} {}: the database is not available ({})", request.getMethod(), request.getRequestURI(),
                e.toString());
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header("Retry-After", "1")
                .contentType(OjsHeaders.OJS_JSON)
                .body(wrap(envelope("backend_error", "the database is not available; try again", true, request)));
    }

    /**
     * Everything else: what the framework refuses on its own (a body over the size cap, a query
     * parameter of the wrong type, a method not allowed) keeps its 4xx status in OJS's envelope;
     * only a failure of the server is a 500.
     */
    @ExceptionHandler(Exception.class)
    ResponseEntity<ObjectNode> failed(Exception e, HttpServletRequest request) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof BodyTooLarge tooLarge) {
                return ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE).header("Connection", "close")
                        .contentType(OjsHeaders.OJS_JSON).body(wrap(envelope("invalid_request", tooLarge.getMessage(),
                                false, request)));
            }
        }
        if (e instanceof RequestRejectedException rejected) {
            return answer(HttpStatus.BAD_REQUEST, envelope("invalid_request", "the request was refused: "
                    + rejected.getMessage(), false, request));
        }
        if (e instanceof HttpMessageNotReadableException) {
            return answer(HttpStatus.BAD_REQUEST, envelope("invalid_payload", "the body cannot be read", false, request));
        }
        if (e instanceof TypeMismatchException mismatch) {
            String name = mismatch.getPropertyName() != null ? mismatch.getPropertyName() : "a parameter";
            return answer(HttpStatus.BAD_REQUEST, envelope("invalid_request", name + " has the wrong type: '"
                    + mismatch.getValue() + "'", false, request));
        }
        if (e instanceof ErrorResponse refused && refused.getStatusCode().is4xxClientError()) {
            HttpStatus status = HttpStatus.valueOf(refused.getStatusCode().value());
            String detail = refused.getBody().getDetail() != null ? refused.getBody().getDetail() : status.getReasonPhrase();
            return answer(status, envelope(status == HttpStatus.NOT_FOUND ? "not_found" : "invalid_request", detail,
                    false, request));
        }
        if (ProblemHandler.connectionLost(e)) {
            // a rollback on a connection PostgreSQL closed, say: the database fault, not a bug
            return backendDown(e, request);
        }
        log.error("OJS {} {} failed", request.getMethod(), request.getRequestURI(), e);
        return answer(HttpStatus.INTERNAL_SERVER_ERROR,
                envelope("backend_error", "the server failed to handle the request", true, request));
    }

    private ObjectNode envelope(String code, String message, boolean retryable, HttpServletRequest request) {
        ObjectNode error = json.createObjectNode();
        error.put("code", code);
        error.put("message", message);
        error.put("retryable", retryable);
        Object id = request.getAttribute(OjsHeaders.REQUEST_ID);
        if (id != null) {
            error.put("request_id", id.toString());
        }
        return error;
    }

    private ResponseEntity<ObjectNode> answer(HttpStatus status, ObjectNode error) {
        return ResponseEntity.status(status).contentType(OjsHeaders.OJS_JSON).body(wrap(error));
    }

    private ObjectNode wrap(ObjectNode error) {
        ObjectNode body = json.createObjectNode();
        body.set("error", error);
        return body;
    }
}
