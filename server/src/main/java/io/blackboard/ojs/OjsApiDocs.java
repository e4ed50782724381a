package io.blackboard.ojs;

import com.fasterxml.jackson.core.type.TypeReference;
import io.swagger.v3.core.util.Json31;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.RequestBody;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.Map;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.lang.Nullable;

/**
 * The binding's operations in the OpenAPI document: OJS's bodies, taken as
 * {@code application/openjobspec+json} or {@code application/json} and answered as the former,
 * and its errors in OJS's envelope ({@link OjsErrors}), never as RFC 9457 problems. Runs before
 * the platform's customizer, which adds the refusals that answer before the binding (401, 403,
 * and the problem forms of 413 and 503).
 */
@Configuration(proxyBeanMethods = false)
class OjsApiDocs {

    static final String TAG = "OJS";
    private static final String OJS_JSON = "application/openjobspec+json";
    private static final String REF = "#/components/schemas/";

    /** What one operation takes and answers; {@code errors} beyond those every operation has. */
    private record Doc(@Nullable String request, String success, String answer, List<String> errors) {
    }

    private static final Map<String, Doc> OPERATIONS = Map.ofEntries(
            Map.entry("GET /ojs/manifest", new Doc(null, "200", "OjsManifest", List.of())),
            Map.entry("GET /ojs/v1/health", new Doc(null, "200", "OjsHealth", List.of())),
            Map.entry("POST /ojs/v1/jobs", new Doc("OjsEnqueue", "201", "OjsJobAnswer", List.of("409"))),
            Map.entry("POST /ojs/v1/jobs/batch", new Doc("OjsBatch", "201", "OjsBatchAnswer", List.of("409"))),
            Map.entry("GET /ojs/v1/jobs/{id}", new Doc(null, "200", "OjsJobAnswer", List.of("404"))),
            Map.entry("DELETE /ojs/v1/jobs/{id}", new Doc(null, "200", "OjsJobAnswer", List.of("404", "409"))),
            Map.entry("POST /ojs/v1/workers/fetch", new Doc("OjsFetch", "200", "OjsJobs", List.of())),
            Map.entry("POST /ojs/v1/workers/ack", new Doc("OjsAck", "200", "OjsLanding", List.of("404", "409"))),
            Map.entry("POST /ojs/v1/workers/nack", new Doc("OjsNack", "200", "OjsLanding", List.of("404", "409"))),
            Map.entry("POST /ojs/v1/workers/heartbeat", new Doc("OjsHeartbeat", "200", "OjsHeartbeatAnswer",
                    List.of())),
            Map.entry("GET /ojs/v1/dead-letter", new Doc(null, "200", "OjsDeadLetters", List.of())),
            Map.entry("POST /ojs/v1/dead-letter/{id}/retry", new Doc(null, "200", "OjsJobAnswer",
                    List.of("404", "409"))),
            Map.entry("DELETE /ojs/v1/dead-letter/{id}", new Doc(null, "200", "OjsDeleted", List.of("404", "409"))),
            Map.entry("GET /ojs/v1/queues", new Doc(null, "200", "OjsQueues", List.of())),
            Map.entry("GET /ojs/v1/events", new Doc(null, "200", "OjsEvents", List.of())));

    private static final Map<String, String> ERRORS = Map.of(
            "400", "invalid_request or invalid_payload: a body that is no JSON object, a missing or mistyped field, "
                    + "a Content-Type other than application/openjobspec+json or application/json",
            "404", "not_found: no such job (ended jobs are kept for BLACKBOARD_JOB_RETENTION)",
            "409", "conflict or duplicate: the job is not where this call needs it (not active, held by another "
                    + "worker or attempt, already ended, not a dead letter), or its id is taken",
            "413", "invalid_request: the body is larger than BLACKBOARD_MAX_BODY_SIZE",
            "415", "invalid_request: a Content-Type header that is not a media type at all",
            "422", "unsupported: an OJS-Version other than 1.x; schema_validation: a retry policy that cannot run, "
                    + "args or a result the function block's JSON Schema refuses",
            "500", "backend_error: the server failed; the failure is logged",
            "503", "backend_error (retryable): the database is not available");

    @Bean
    @Order(0)
    OpenApiCustomizer ojsOperations() {
        return openApi -> {
            openApi.getComponents().getSchemas().putAll(schemas());
            openApi.getPaths().forEach((path, item) -> item.readOperationsMap().forEach((method, operation) -> {
                Doc doc = OPERATIONS.get(method.name() + " " + path);
                if (doc != null) {
                    document(operation, doc, path);
                }
            }));
        };
    }

    private static void document(Operation operation, Doc doc, String path) {
        operation.setTags(List.of(TAG));
        if (operation.getParameters() != null) {
            operation.getParameters().stream().filter(parameter -> "id".equals(parameter.getName()))
                    .forEach(parameter -> parameter.getSchema().format("uuid")); // else 400 invalid_request
        }
        if (doc.request() != null) {
            Schema<?> body = ref(doc.request());
            operation.setRequestBody(new RequestBody().required(true).content(new Content()
                    .addMediaType(OJS_JSON, new MediaType().schema(body))
                    .addMediaType("application/json", new MediaType().schema(ref(doc.request())))));
        }
        ApiResponses responses = new ApiResponses();
        responses.addApiResponse(doc.success(), new ApiResponse().description(doc.answer().equals("OjsHealth")
                ? "The server and its database are up" : "Done").content(ojs(doc.answer())));
        if (path.equals("/ojs/v1/jobs")) {
            responses.get("201").addHeaderObject("Location", new Header().description("/ojs/v1/jobs/{id}")
                    .schema(new Schema<>().types(Set.of("string"))));
        }
        List<String> codes = new ArrayList<>(List.of("400", "413", "422", "500", "503"));
        if (doc.request() != null) {
            codes.add("415"); // a Content-Type that cannot be parsed
        }
        codes.addAll(doc.errors());
        codes.forEach(code -> responses.addApiResponse(code,
                new ApiResponse().description(ERRORS.get(code)).content(ojs("OjsError"))));
        responses.get("503").addHeaderObject("Retry-After", new Header().required(!path.endsWith("/health"))
                .description("Seconds to wait (not sent with a degraded health)").schema(new IntegerSchema()));
        if (path.endsWith("/health")) {
            responses.get("503").description("The database is unreachable: status degraded")
                    .content(ojs("OjsHealth"));
        }
        operation.setResponses(responses);
    }

    private static Content ojs(String schema) {
        return new Content().addMediaType(OJS_JSON, new MediaType().schema(ref(schema)));
    }

    private static Schema<?> ref(String name) {
        return new Schema<>().$ref(REF + name);
    }

    /** The worker's requests, whose optional fields the binding reads a null as absent. */
    private static final List<String> NULL_AS_ABSENT = List.of("OjsFetch", "OjsAck", "OjsNack", "OjsHeartbeat");

    @SuppressWarnings("rawtypes")
    private static Map<String, Schema> schemas() {
        try {
            Map<String, Schema> schemas = Json31.mapper().readValue(SCHEMAS, new TypeReference<Map<String, Schema>>() {
            });
            NULL_AS_ABSENT.forEach(name -> nullable(schemas.get(name)));
            return schemas;
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw new IllegalStateException("OjsApiDocs.SCHEMAS is not a map of schemas", e);
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static void nullable(Schema schema) {
        ((Map<String, Schema>) schema.getProperties()).forEach((name, property) -> {
            if ((schema.getRequired() == null || !schema.getRequired().contains(name)) && property.getTypes() != null) {
                Set<String> types = new java.util.LinkedHashSet<>(property.getTypes());
                types.add("null");
                property.setTypes(types);
            }
        });
    }

    private static final String SCHEMAS = """
            {
              "OjsError": {
                "type": "object", "required": ["error"],
                "description": "OJS's error envelope",
                "properties": {"error": {"type": "object", "required": ["code", "message", "retryable"],
                  "properties": {
                    "code": {"type": "string", "examples": ["invalid_request", "invalid_payload", "not_found",
                      "conflict", "duplicate", "schema_validation", "unsupported", "backend_error"]},
                    "message": {"type": "string"}, "retryable": {"type": "boolean"},
                    "request_id": {"type": "string"}, "type": {"type": "string"}, "hint": {"type": "string"},
                    "docs_url": {"type": "string", "format": "uri"}}}},
                "example": {"error": {"code": "not_found", "message": "job 019461a8-1a2b-7c3d-8e4f-5a6b7c8d9e0f not found",
                  "retryable": false, "request_id": "req_5f0c"}}
              },
              "OjsJob": {
                "type": "object", "required": ["id", "type", "args", "state", "attempt", "max_attempts", "priority"],
                "description": "An OJS job as stored: the fields below, and any unknown field the producer sent",
                "additionalProperties": true,
                "properties": {
                  "id": {"type": "string", "format": "uuid"},
                  "type": {"type": "string", "pattern": "^[a-z][a-z0-9_-]*(\\\\.[a-z][a-z0-9_-]*)*$"},
                  "queue": {"type": "string"}, "args": {"type": "array"}, "meta": {"type": "object"},
                  "options": {"type": "object"}, "priority": {"type": "integer", "minimum": -100, "maximum": 100},
                  "state": {"type": "string", "enum": ["scheduled", "available", "pending", "active", "completed",
                    "retryable", "cancelled", "discarded"]},
                  "attempt": {"type": "integer", "minimum": 0}, "max_attempts": {"type": "integer"},
                  "timeout_ms": {"type": "integer"},
                  "created_at": {"type": "string"}, "enqueued_at": {"type": "string"},
                  "scheduled_at": {"type": "string"}, "started_at": {"type": "string"},
                  "completed_at": {"type": "string"}, "cancelled_at": {"type": "string"},
                  "discarded_at": {"type": "string"}, "next_attempt_at": {"type": "string"},
                  "retry_delay_ms": {"type": "integer"}, "worker_id": {"type": "string"},
                  "result": {"description": "Any JSON: the ack's result"},
                  "error": {"type": "object"}, "errors": {"type": "array", "items": {"type": "object"}}},
                "example": {"id": "019461a8-1a2b-7c3d-8e4f-5a6b7c8d9e0f", "type": "email.send", "queue": "mail",
                  "args": [{"to": "ops@example.com"}], "priority": 0, "state": "available", "attempt": 0,
                  "max_attempts": 3, "created_at": "2026-11-26T09:30:00.000Z", "enqueued_at": "2026-11-26T09:30:00.000Z"}
              },
              "OjsEnqueue": {
                "type": "object", "required": ["type", "args"], "additionalProperties": true,
                "description": "A job to enqueue; unknown fields are kept with the job",
                "properties": {
                  "id": {"type": "string", "format": "uuid", "description": "A lowercase UUIDv7, else the server's"},
                  "type": {"type": "string", "pattern": "^[a-z][a-z0-9_-]*(\\\\.[a-z][a-z0-9_-]*)*$"},
                  "args": {"type": "array"}, "meta": {"type": "object"},
                  "options": {"type": "object", "properties": {
                    "queue": {"type": "string", "pattern": "^[a-z0-9][a-z0-9.-]*$", "default": "default"},
                    "priority": {"type": "integer", "minimum": -100, "maximum": 100, "default": 0},
                    "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 2678400000},
                    "visibility_timeout_ms": {"type": "integer", "minimum": 1, "maximum": 2678400000},
                    "delay_until": {"type": "string", "format": "date-time"},
                    "retry": {"type": "object", "properties": {
                      "max_attempts": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 3},
                      "initial_interval": {"type": "string", "default": "PT1S"},
                      "backoff_coefficient": {"type": "number", "minimum": 1, "maximum": 100, "default": 2},
                      "backoff_strategy": {"type": "string", "enum": ["exponential", "linear", "constant"]},
                      "max_interval": {"type": "string", "default": "PT5M"}, "jitter": {"type": "boolean"},
                      "non_retryable_errors": {"type": "array", "maxItems": 100, "items": {"type": "string"}},
                      "on_exhaustion": {"type": "string", "enum": ["discard", "dead_letter"]}}}}}},
                "example": {"type": "email.send", "args": [{"to": "ops@example.com"}], "options": {"queue": "mail"}}
              },
              "OjsBatch": {
                "type": "object", "required": ["jobs"],
                "properties": {"jobs": {"type": "array", "items": {"$ref": "#/components/schemas/OjsEnqueue"}}},
                "example": {"jobs": [{"type": "email.send", "args": [{"to": "a@example.com"}]},
                  {"type": "email.send", "args": [{"to": "b@example.com"}]}]}
              },
              "OjsJobAnswer": {
                "type": "object", "required": ["job"],
                "properties": {"job": {"$ref": "#/components/schemas/OjsJob"}}
              },
              "OjsBatchAnswer": {
                "type": "object", "required": ["jobs", "count"],
                "properties": {"jobs": {"type": "array", "items": {"$ref": "#/components/schemas/OjsJob"}},
                  "count": {"type": "integer", "minimum": 0}}
              },
              "OjsJobs": {
                "type": "object", "required": ["jobs"],
                "properties": {"jobs": {"type": "array", "items": {"$ref": "#/components/schemas/OjsJob"}}}
              },
              "OjsFetch": {
                "type": "object", "required": ["queues"],
                "properties": {
                  "queues": {"type": "array", "minItems": 1, "maxItems": 100,
                    "items": {"type": "string", "pattern": "^[a-z0-9][a-z0-9.-]*$"}},
                  "count": {"type": "integer", "minimum": 1, "maximum": %d, "default": 1},
                  "worker_id": {"type": "string", "description": "Makes a Blackboard worker of that name"},
                  "visibility_timeout_ms": {"type": "integer", "minimum": 1, "maximum": 2678400000}},
                "example": {"queues": ["mail"], "worker_id": "mailer-1", "count": 1}
              },
              "OjsAck": {
                "type": "object", "required": ["job_id"],
                "properties": {"job_id": {"type": "string", "format": "uuid"}, "worker_id": {"type": "string"},
                  "attempt": {"type": "integer", "minimum": 1, "description": "The attempt the fetch showed (a fence)"},
                  "result": {"description": "Any JSON"}},
                "example": {"job_id": "019461a8-1a2b-7c3d-8e4f-5a6b7c8d9e0f", "worker_id": "mailer-1",
                  "result": {"sent": true}}
              },
              "OjsNack": {
                "type": "object", "required": ["job_id", "error"],
                "properties": {"job_id": {"type": "string", "format": "uuid"}, "worker_id": {"type": "string"},
                  "attempt": {"type": "integer", "minimum": 1},
                  "error": {"type": "object", "properties": {"code": {"type": "string"},
                    "message": {"type": "string"}, "type": {"type": "string"}, "details": {"type": "object"}}},
                  "requeue": {"type": "boolean", "default": false}},
                "example": {"job_id": "019461a8-1a2b-7c3d-8e4f-5a6b7c8d9e0f", "worker_id": "mailer-1",
                  "error": {"code": "smtp_down", "message": "connection refused"}}
              },
              "OjsLanding": {
                "type": "object", "required": ["id", "job_id", "job"],
                "properties": {"id": {"type": "string", "format": "uuid"}, "job_id": {"type": "string", "format": "uuid"},
                  "state": {"type": "string"}, "attempt": {"type": "integer"}, "max_attempts": {"type": "integer"},
                  "next_attempt_at": {"type": "string"}, "retry_delay_ms": {"type": "integer"},
                  "acknowledged": {"type": "boolean"}, "job": {"$ref": "#/components/schemas/OjsJob"}}
              },
              "OjsHeartbeat": {
                "type": "object", "required": ["worker_id"],
                "properties": {"worker_id": {"type": "string"},
                  "active_jobs": {"type": "array", "maxItems": 10000, "items": {"type": "string", "format": "uuid"}},
                  "active_job_ids": {"type": "array", "maxItems": 10000, "items": {"type": "string", "format": "uuid"},
                    "description": "The same as active_jobs, as some SDKs name it"},
                  "visibility_timeout_ms": {"type": "integer", "minimum": 1, "maximum": 2678400000}},
                "example": {"worker_id": "mailer-1", "active_jobs": ["019461a8-1a2b-7c3d-8e4f-5a6b7c8d9e0f"]}
              },
              "OjsHeartbeatAnswer": {
                "type": "object", "required": ["state"],
                "properties": {"state": {"type": "string", "enum": ["running", "quiet", "terminate"]},
                  "jobs_extended": {"type": "array", "items": {"type": "string", "format": "uuid"}},
                  "cancelled_job_ids": {"type": "array", "items": {"type": "string", "format": "uuid"}},
                  "server_time": {"type": "string"}}
              },
              "OjsDeadLetters": {
                "type": "object", "required": ["jobs"],
                "properties": {"jobs": {"type": "array", "items": {"$ref": "#/components/schemas/OjsJob"}},
                  "next": {"type": "string", "format": "uuid", "description": "Pass as after for the next page"}}
              },
              "OjsDeleted": {
                "type": "object", "required": ["deleted", "job_id"],
                "properties": {"deleted": {"type": "boolean"}, "job_id": {"type": "string", "format": "uuid"}}
              },
              "OjsQueues": {
                "type": "object", "required": ["queues"],
                "properties": {"queues": {"type": "array", "items": {"type": "object",
                  "required": ["name", "available", "active", "scheduled", "dead_letter"],
                  "properties": {"name": {"type": "string"}, "available": {"type": "integer"},
                    "active": {"type": "integer"}, "scheduled": {"type": "integer"},
                    "dead_letter": {"type": "integer"}}}}}
              },
              "OjsEvents": {
                "type": "object", "required": ["events"],
                "properties": {"events": {"type": "array", "items": {"type": "object",
                  "required": ["specversion", "id", "seq", "type", "time", "subject", "data"],
                  "properties": {"specversion": {"type": "string"}, "id": {"type": "string"},
                    "seq": {"type": "integer"}, "type": {"type": "string"}, "time": {"type": "string"},
                    "subject": {"type": "string"}, "data": {"type": "object"}}}}}
              },
              "OjsManifest": {
                "type": "object", "required": ["specversion", "implementation", "conformance_level", "capabilities"],
                "properties": {"specversion": {"type": "string"}, "implementation": {"type": "object"},
                  "conformance_level": {"type": "integer"}, "conformance_tier": {"type": "string"},
                  "protocols": {"type": "array", "items": {"type": "string"}}, "backend": {"type": "string"},
                  "capabilities": {"type": "object", "additionalProperties": {"type": "boolean"}}}
              },
              "OjsHealth": {
                "type": "object", "required": ["status", "version", "backend"],
                "properties": {"status": {"type": "string", "enum": ["ok", "degraded"]}, "version": {"type": "string"},
                  "backend": {"type": "object", "properties": {"type": {"type": "string"},
                    "status": {"type": "string", "enum": ["ok", "unreachable"]}}}}
              }
            }
            """.formatted(OjsService.MAX_FETCH);
}
