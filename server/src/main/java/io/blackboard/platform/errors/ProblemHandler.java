package io.blackboard.platform.errors;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.lang.Nullable;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.validation.FieldError;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Turns every failure into an RFC 9457 problem with a detail a person can act on.
 * Framework exceptions keep their status; ours carry their own.
 */
@RestControllerAdvice
public class ProblemHandler extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemHandler.class);

    public static ProblemDetail problem(HttpStatusCode status, String kind, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(URI.create("/problems/" + kind));
        return problem;
    }

    /** Answers with a problem from a filter, before any controller: set extra headers first. */
    public static void write(HttpServletResponse response, JsonMapper json, ProblemDetail problem) throws IOException {
        response.setStatus(problem.getStatus());
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        json.writeValue(response.getOutputStream(), problem);
    }

    @ExceptionHandler(ApiException.class)
    ResponseEntity<ProblemDetail> api(ApiException e) {
        ProblemDetail problem = e.toProblem();
        ResponseEntity.BodyBuilder response = ResponseEntity.status(e.status());
        e.headers().forEach(response::header);
        return response.body(problem);
    }

    @ExceptionHandler(AccessDeniedException.class)
    ResponseEntity<ProblemDetail> denied(AccessDeniedException e) {
        return ResponseEntity.status(HttpStatus.FORBIDDEN).body(problem(HttpStatus.FORBIDDEN, "forbidden",
                "This token may not act for that worker: a worker token acts only for the worker it was issued to"));
    }

    /**
     * Spring Security's firewall refused what the request holds, such as a form parameter whose
     * name has a line break (a form or multipart body sent to this JSON API): the client's fault.
     */
    @ExceptionHandler(RequestRejectedException.class)
    ResponseEntity<ProblemDetail> rejected(RequestRejectedException e) {
        return ResponseEntity.badRequest().body(problem(HttpStatus.BAD_REQUEST, "invalid-request",
                "The request was refused: " + e.getMessage() + ". The API takes JSON bodies (application/json)"));
    }

    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    ResponseEntity<ProblemDetail> typeMismatch(MethodArgumentTypeMismatchException e) {
        String detail = "'%s' is not a valid value for %s".formatted(e.getValue(), e.getName());
        return ResponseEntity.badRequest().body(problem(HttpStatus.BAD_REQUEST, "invalid-request", detail));
    }

    /**
     * The database is unreachable, or a transaction lost a lock race, or the connection broke at
     * any step (connection, statement, commit, rollback): the same request can be sent again.
     * Nothing was changed, unless the connection broke during the commit itself, which the
     * server cannot tell from a commit that failed; the API's retries are safe for that too
     * (pushes are fenced, pings idempotent, creates keyed). Answered at once, never after a long hang.
     */
    @ExceptionHandler({TransientDataAccessException.class, DataAccessResourceFailureException.class,
            CannotCreateTransactionException.class})
    ResponseEntity<ProblemDetail> transientFailure(Exception e) {
        ApiException refused = ExceptionUtils.find(e, ApiException.class);
        if (refused != null) {
            return api(refused); // refused as the connection was handed out (a transaction wraps that)
        }
        log.warn("Transient database failure: {}", e.toString());
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header("Retry-After", "1")
                .body(problem(HttpStatus.SERVICE_UNAVAILABLE, "database-unavailable",
                        "The database is unavailable or busy; retry shortly. Nothing was changed, unless the connection "
                                + "broke while committing: a push, a ping or a create with an idempotency key is safe to send again"));
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<ProblemDetail> unexpected(Exception e) {
        if (connectionLost(e)) {
            // e.g. a rollback on a connection PostgreSQL closed while shutting down replaces the 503
            return transientFailure(e);
        }
        if (ExceptionUtils.any(e, ProblemHandler::saysNulCharacter)) {
            return ResponseEntity.badRequest().body(problem(HttpStatus.BAD_REQUEST, "invalid-request",
                    "Strings may not hold the NUL character (\\u0000): PostgreSQL cannot store it"));
        }
        log.error("Unexpected failure", e);
        return ResponseEntity.internalServerError().body(problem(HttpStatus.INTERNAL_SERVER_ERROR, "internal",
                "The server failed to answer this request; it has been logged"));
    }

    /**
     * Whatever the wrapping, it comes down to a lost connection: SQLSTATE class 08, or 57P (the
     * server shut down), anywhere in the chain; HikariCP's "Connection is closed" (it says so with
     * no SQLSTATE, for a connection it evicted because it broke: a rollback after PostgreSQL
     * terminated the session fails so); or a failed rollback whose transaction failed so first.
     */
    public static boolean connectionLost(Throwable e) {
        return ExceptionUtils.any(e, ProblemHandler::saysConnectionLost);
    }

    /**
     * PostgreSQL refused a NUL the caller put in a string: in a text column (22021, an invalid
     * byte sequence) or in jsonb (22P05, an unsupported escape). The statement changed nothing.
     */
    private static boolean saysNulCharacter(Throwable t) {
        return t instanceof SQLException sql && ("22021".equals(sql.getSQLState()) || "22P05".equals(sql.getSQLState()));
    }

    private static boolean saysConnectionLost(Throwable t) {
        if (t instanceof SQLException sql) {
            String state = sql.getSQLState();
            return state != null ? state.startsWith("08") || state.startsWith("57P")
                    : "Connection is closed".equals(sql.getMessage());
        }
        return t instanceof TransactionSystemException rollback && rollback.getApplicationException() != null
                && rollback.getApplicationException() != t && connectionLost(rollback.getApplicationException());
    }



    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException e,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        BodyTooLarge tooLarge = ExceptionUtils.find(e, BodyTooLarge.class);
        if (tooLarge != null) {
            return ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE).header("Connection", "close")
                    .body(problem(HttpStatus.CONTENT_TOO_LARGE, "body-too-large", tooLarge.getMessage()));
        }
        return ResponseEntity.badRequest().body(unreadable(e));
    }

    @Override
    protected ResponseEntity<Object> handleMethodArgumentNotValid(MethodArgumentNotValidException e,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        List<String> errors = e.getBindingResult().getFieldErrors().stream()
                .map(ProblemHandler::describe).sorted().toList();
        List<String> global = e.getBindingResult().getGlobalErrors().stream()
                .map(error -> error.getDefaultMessage()).toList();
        ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, "invalid-request",
                "Invalid request: " + String.join("; ", concat(errors, global)));
        problem.setProperty("errors", concat(errors, global));
        return ResponseEntity.badRequest().body(problem);
    }

    @Override
    protected ResponseEntity<Object> handleHandlerMethodValidationException(HandlerMethodValidationException e,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        List<String> errors = e.getParameterValidationResults().stream()
                .flatMap(result -> {
                    String where = result.getMethodParameter().getParameterName()
                            + (result.getContainerIndex() == null ? "" : "[" + result.getContainerIndex() + "]");
                    return result.getResolvableErrors().stream().map(error -> error instanceof FieldError field
                            ? where + "." + field.getField() + " " + field.getDefaultMessage()
                            : where + " " + error.getDefaultMessage());
                })
                .sorted().toList();
        ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, "invalid-request",
                "Invalid request: " + String.join("; ", errors));
        problem.setProperty("errors", errors);
        return ResponseEntity.badRequest().body(problem);
    }

    @Override
    protected ResponseEntity<Object> createResponseEntity(@Nullable Object body, HttpHeaders headers,
            HttpStatusCode statusCode, WebRequest request) {
        // Spring 7 leaves a framework problem's type unset (null) where 6 said about:blank
        if (body instanceof ProblemDetail problem
                && (problem.getType() == null || problem.getType().equals(URI.create("about:blank")))) {
            problem.setType(URI.create("/problems/" + kindOf(statusCode)));
        }
        return super.createResponseEntity(body, headers, statusCode, request);
    }

    private static String kindOf(HttpStatusCode status) {
        HttpStatus known = HttpStatus.resolve(status.value());
        return known == null ? "http-" + status.value() : known.name().toLowerCase().replace('_', '-');
    }

    private static ProblemDetail unreadable(HttpMessageNotReadableException e) {
        Throwable cause = e.getMostSpecificCause();
        if (cause instanceof UnrecognizedPropertyException unknown) {
            String field = path(unknown.getPath());
            ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, "unknown-field",
                    "Unknown field '" + field + "': it does not exist or only the server sets it; allowed: "
                            + unknown.getKnownPropertyIds());
            problem.setProperty("field", field);
            return problem;
        }
        if (cause instanceof StreamConstraintsException limit) {
            return problem(HttpStatus.BAD_REQUEST, "json-limit", "JSON too large or too deep: "
                    + firstLine(limit.getOriginalMessage()));
        }
        if (cause instanceof StreamReadException parse) {
            return problem(HttpStatus.BAD_REQUEST, "malformed-json", "Malformed JSON: " + parse.getOriginalMessage());
        }
        if (cause instanceof JacksonException mapping && !mapping.getPath().isEmpty()) {
            String field = path(mapping.getPath());
            ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, "invalid-request",
                    "Invalid value for '" + field + "': " + firstLine(mapping.getOriginalMessage()));
            problem.setProperty("field", field);
            return problem;
        }
        String message = e.getMessage() == null || e.getMessage().startsWith("Required request body")
                ? "A JSON request body is required"
                : "Unreadable request body: " + firstLine(cause.getMessage());
        return problem(HttpStatus.BAD_REQUEST, "malformed-json", message);
    }

    private static String path(List<JacksonException.Reference> references) {
        return references.stream()
                .map(ref -> ref.getPropertyName() != null ? "." + ref.getPropertyName() : "[" + ref.getIndex() + "]")
                .collect(Collectors.joining())
                .replaceFirst("^\\.", "");
    }

    private static String describe(FieldError error) {
        return error.getField() + " " + error.getDefaultMessage();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
