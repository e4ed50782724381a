package io.blackboard.platform.web;

import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import java.util.Set;

/**
 * The error answers of one operation. Some come before any controller, from the filters, on
 * every path (the OJS binding's included): 400 for a malformed Blackboard-Timeout-Ms or what the
 * firewall refuses, 401 for an unknown token (even where none is needed),
 * 403 for a token of another role, 413 for a body over BLACKBOARD_MAX_BODY_SIZE, 503 with
 * Retry-After for load shedding. The rest are the controllers' and the framework's, as problems:
 * 400, 404 where a path names an id, 406 when Accept excludes JSON, 415 for a body that is no
 * JSON, 500, 503 when the database is unavailable, and what each operation declares. An operation
 * that documents its own error content (the OJS binding's envelope) keeps it.
 */
final class ApiErrors {

    private ApiErrors() {
    }

    static void document(String path, Operation operation) {
        ApiResponses responses = operation.getResponses() == null ? new ApiResponses() : operation.getResponses();
        boolean publicOperation = operation.getSecurity() != null && operation.getSecurity().isEmpty();
        boolean ownErrors = responses.get("400") != null && !unset(responses.get("400").getContent());

        filterLevel(responses, "401", publicOperation
                ? "An Authorization header with an unknown token, or not Bearer (none is needed here)"
                : "No bearer token, an unknown one, or not Bearer")
                .addHeaderObject("WWW-Authenticate", new Header().description("Bearer").schema(new StringSchema()));
        if (!publicOperation) {
            filterLevel(responses, "403", "This kind of token may not make this call (see security), or a worker "
                    + "token names another worker");
        }
        filterLevel(responses, "413", "The body is larger than BLACKBOARD_MAX_BODY_SIZE (1 MB by default; any "
                + "request declaring a larger one is refused unread)");
        ApiResponse unavailable = filterLevel(responses, "503", "Nothing was done, send it again after Retry-After: "
                + "this replica sheds load (BLACKBOARD_MAX_CONCURRENT_REQUESTS), or the database is unavailable");
        if (unavailable.getHeaders() == null || !unavailable.getHeaders().containsKey("Retry-After")) {
            unavailable.addHeaderObject("Retry-After", new Header().required(true)
                    .description("Seconds to wait before sending the request again").schema(new IntegerSchema()));
        }
        if (!ownErrors) {
            responses.putIfAbsent("400", new ApiResponse()
                    .description("Malformed JSON, a wrong type or an invalid value (the detail names the field)"));
            responses.putIfAbsent("406", new ApiResponse().description("Accept excludes application/json"));
            responses.putIfAbsent("500", new ApiResponse().description("The server failed; the failure is logged"));
            if (operation.getRequestBody() != null) {
                responses.putIfAbsent("415", new ApiResponse().description("Content-Type is not application/json"));
            }
            if (path.contains("{id}")) {
                responses.putIfAbsent("404", new ApiResponse().description("No such " + (path.startsWith("/workers")
                        ? "worker" : path.startsWith("/function-blocks") ? "function block" : "job")));
            }
        }
        if (path.contains("{id}")) {
            filterLevel(responses, "404", "An empty id: no such path");
        }
        filterLevel(responses, "400", "A malformed " + Caller.TIMEOUT_HEADER + ", or a request the firewall refuses "
                + "(an encoded %, ; or line break in the path, a NUL in a query value)");
        ApiResponses sorted = new ApiResponses();
        responses.keySet().stream().sorted().forEach(code -> {
            ApiResponse response = responses.get(code);
            if ((code.startsWith("4") || code.startsWith("5")) && unset(response.getContent())) {
                response.setContent(problemContent());
            }
            sorted.addApiResponse(code, response);
        });
        operation.setResponses(sorted);
    }

    /** A refusal the filters answer as a problem whatever the path: the problem is one of its forms. */
    private static ApiResponse filterLevel(ApiResponses responses, String code, String description) {
        ApiResponse response = responses.computeIfAbsent(code, c -> new ApiResponse().description(description));
        if (unset(response.getContent())) {
            response.setContent(problemContent());
        } else if (!response.getContent().containsKey(OpenApiConfig.PROBLEM_JSON)) {
            response.getContent().addMediaType(OpenApiConfig.PROBLEM_JSON, problem());
            response.setDescription(response.getDescription() + ". Or, as a problem, before the operation runs: "
                    + description);
        }
        return response;
    }

    /**
     * No error content of the operation's own: none, or springdoc's default for an annotated
     * answer (the success's type, as application/json), which the native API never answers errors with.
     */
    private static boolean unset(Content content) {
        return content == null || content.isEmpty() || content.keySet().equals(Set.of("application/json"));
    }

    private static Content problemContent() {
        return new Content().addMediaType(OpenApiConfig.PROBLEM_JSON, problem());
    }

    private static MediaType problem() {
        return new MediaType().schema(new Schema<>().$ref("#/components/schemas/" + OpenApiConfig.PROBLEM));
    }
}
