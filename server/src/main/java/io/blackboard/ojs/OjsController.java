package io.blackboard.ojs;

import io.blackboard.platform.web.Caller;
import io.blackboard.platform.web.IgnoresAccept;
import io.blackboard.platform.web.ServerVersion;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.lang.Nullable;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OJS HTTP binding, levels 0 and 1 (docs/ojs.md): the manifest, health, enqueue, info,
 * cancel, the worker's fetch, ack, nack and heartbeat, dead letters, queues and events. Bodies
 * are read here, as OJS asks: any JSON content type, a body that is no JSON is
 * {@code invalid_payload}, unknown fields of a job are kept. Answers are
 * {@code application/openjobspec+json}; errors are OJS's envelope ({@link OjsErrors}).
 */
@RestController
@IgnoresAccept // the spec's media type, whatever the Accept
@Tag(name = OjsApiDocs.TAG, description = "The Open Job Spec HTTP binding, levels 0 and 1 (docs/ojs.md): OJS's "
        + "bodies and its error envelope, not RFC 9457 problems")
class OjsController {

    private static final String V1 = "/ojs/v1";

    private final OjsService service;
    private final JsonMapper json;
    private final ServerVersion version;

    OjsController(OjsService service, JsonMapper json, ServerVersion version) {
        this.service = service;
        this.json = json;
        this.version = version;
    }

    @Operation(summary = "The conformance manifest (public)")
    @GetMapping("/ojs/manifest")
    ResponseEntity<JsonNode> manifest() {
        ObjectNode manifest = json.createObjectNode();
        manifest.put("specversion", OjsHeaders.VERSION);
        ObjectNode implementation = manifest.putObject("implementation");
        implementation.put("name", "blackboard");
        implementation.put("version", version.version());
        implementation.put("language", "java");
        implementation.put("homepage", OjsErrors.DOCS);
        manifest.put("conformance_level", OjsConformance.LEVEL);
        manifest.put("conformance_tier", "reliable");
        manifest.putArray("protocols").add("http");
        manifest.put("backend", "postgresql");
        ObjectNode capabilities = manifest.putObject("capabilities");
        capabilities.put("batch_enqueue", true);
        capabilities.put("retry", true);
        capabilities.put("dead_letter", true);
        capabilities.put("scheduled_jobs", true);
        capabilities.put("heartbeat", true);
        capabilities.put("visibility_timeout", true);
        capabilities.put("execution_timeout", true);
        capabilities.put("events", true);
        capabilities.put("cron", false);
        capabilities.put("workflows", false);
        capabilities.put("unique_jobs", false);
        capabilities.put("queue_pause", false);
        return ok(manifest);
    }

    @Operation(summary = "Health of the server and its database (public)")
    @GetMapping(V1 + "/health")
    ResponseEntity<JsonNode> health() {
        ObjectNode health = json.createObjectNode();
        boolean up;
        try {
            up = service.databaseUp();
        } catch (RuntimeException e) {
            up = false;
        }
        health.put("status", up ? "ok" : "degraded");
        health.put("version", version.version());
        ObjectNode backend = health.putObject("backend");
        backend.put("type", "postgresql");
        backend.put("status", up ? "ok" : "unreachable");
        return ResponseEntity.status(up ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE)
                .contentType(OjsHeaders.OJS_JSON).body(health);
    }

    @Operation(summary = "Enqueue a job")
    @PostMapping(V1 + "/jobs")
    ResponseEntity<JsonNode> enqueue(HttpServletRequest http, @RequestBody(required = false) byte[] body,
            @Parameter(hidden = true) @RequestHeader(value = "Content-Type", required = false) String contentType) {
        Caller.of(http).requireWaiting(); // a client past its deadline, or gone: nothing done
        ObjectNode job = service.enqueue(List.of(read(body, contentType))).getFirst();
        ObjectNode answer = json.createObjectNode();
        answer.set("job", job);
        return ResponseEntity.status(HttpStatus.CREATED).header("Location", V1 + "/jobs/" + job.get("id").asString())
                .contentType(OjsHeaders.OJS_JSON).body(answer);
    }

    /** Several jobs, all or none. */
    @Operation(summary = "Enqueue several jobs, all or none")
    @PostMapping(V1 + "/jobs/batch")
    ResponseEntity<JsonNode> enqueueBatch(HttpServletRequest http, @RequestBody(required = false) byte[] body,
            @Parameter(hidden = true) @RequestHeader(value = "Content-Type", required = false) String contentType) {
        Caller.of(http).requireWaiting(); // a client past its deadline, or gone: nothing done
        JsonNode request = read(body, contentType);
        JsonNode jobs = request.get("jobs");
        if (jobs == null || !jobs.isArray()) {
            throw OjsException.invalid("jobs is required and must be an array of jobs");
        }
        List<JsonNode> bodies = new ArrayList<>();
        jobs.forEach(bodies::add);
        ObjectNode answer = json.createObjectNode();
        ArrayNode created = answer.putArray("jobs");
        service.enqueue(bodies).forEach(created::add);
        answer.put("count", created.size());
        return ResponseEntity.status(HttpStatus.CREATED).contentType(OjsHeaders.OJS_JSON).body(answer);
    }

    @Operation(summary = "One job")
    @GetMapping(V1 + "/jobs/{id}")
    ResponseEntity<JsonNode> info(@PathVariable String id) {
        return ok(wrap("job", service.info(id(id, "job"))));
    }

    @Operation(summary = "Cancel a job")
    @DeleteMapping(V1 + "/jobs/{id}")
    ResponseEntity<JsonNode> cancel(@PathVariable String id) {
        return ok(wrap("job", service.cancel(id(id, "job"))));
    }

    @Operation(summary = "Fetch (claim) jobs of the given queues, in their order; never waits")
    @PostMapping(V1 + "/workers/fetch")
    ResponseEntity<JsonNode> fetch(HttpServletRequest http, @RequestBody(required = false) byte[] body,
            @Parameter(hidden = true) @RequestHeader(value = "Content-Type", required = false) String contentType) {
        Caller caller = Caller.of(http);
        caller.requireWaiting(); // a client past its deadline, or gone: nothing done
        JsonNode request = read(body, contentType);
        JsonNode queuesNode = request.get("queues");
        List<String> queues = new ArrayList<>();
        if (queuesNode == null || !queuesNode.isArray() || queuesNode.isEmpty() || queuesNode.size() > 100) {
            throw OjsException.invalid("queues is required: an array of 1 to 100 queue names");
        }
        for (JsonNode queue : queuesNode) {
            if (!queue.isString() || !OjsEnvelope.QUEUE.matcher(queue.asString()).matches()) {
                throw OjsException.invalid("queues must hold queue names matching " + OjsEnvelope.QUEUE.pattern());
            }
            queues.add(queue.asString());
        }
        int count = (int) number(request, "count", 1, OjsService.MAX_FETCH, 1);
        Long lease = request.hasNonNull("visibility_timeout_ms")
                ? number(request, "visibility_timeout_ms", 1, 31L * 24 * 3600 * 1000, 0) : null;
        ObjectNode answer = json.createObjectNode();
        ArrayNode jobs = answer.putArray("jobs");
        service.fetch(queues.stream().distinct().toList(), count, text(request, "worker_id"), lease, caller)
                .forEach(jobs::add);
        return ok(answer);
    }

    @Operation(summary = "Acknowledge a job: completed, with its result")
    @PostMapping(V1 + "/workers/ack")
    ResponseEntity<JsonNode> ack(HttpServletRequest http, @RequestBody(required = false) byte[] body,
            @Parameter(hidden = true) @RequestHeader(value = "Content-Type", required = false) String contentType) {
        Caller.of(http).requireWaiting(); // a client past its deadline, or gone: nothing done
        JsonNode request = read(body, contentType);
        return ok(service.ack(id(text(request, "job_id"), "job_id"), text(request, "worker_id"), attempt(request),
                request.get("result")));
    }

    @Operation(summary = "Fail a job: retried, dead-lettered or discarded by its retry policy; requeue hands it back")
    @PostMapping(V1 + "/workers/nack")
    ResponseEntity<JsonNode> nack(HttpServletRequest http, @RequestBody(required = false) byte[] body,
            @Parameter(hidden = true) @RequestHeader(value = "Content-Type", required = false) String contentType) {
        Caller.of(http).requireWaiting(); // a client past its deadline, or gone: nothing done
        JsonNode request = read(body, contentType);
        JsonNode error = request.get("error");
        if (error == null || !error.isObject()) {
            throw OjsException.invalid("error is required: an object with code and message");
        }
        if (error.has("message") && !error.get("message").isString() || error.has("code") && !error.get("code").isString()) {
            throw OjsException.invalid("error.code and error.message must be strings");
        }
        JsonNode requeue = request.get("requeue");
        if (requeue != null && !requeue.isNull() && !requeue.isBoolean()) {
            throw OjsException.invalid("requeue must be true or false");
        }
        return ok(service.nack(id(text(request, "job_id"), "job_id"), text(request, "worker_id"), attempt(request),
                error, requeue != null && requeue.asBoolean(false)));
    }

    /** Beats for {@code active_jobs} (ids), or {@code active_job_ids} as some SDKs send them. */
    @Operation(summary = "Extend the leases of held jobs; answers the worker's state and the jobs to stop")
    @PostMapping(V1 + "/workers/heartbeat")
    ResponseEntity<JsonNode> heartbeat(@RequestBody(required = false) byte[] body,
            @Parameter(hidden = true) @RequestHeader(value = "Content-Type", required = false) String contentType) {
        JsonNode request = read(body, contentType);
        String worker = text(request, "worker_id");
        if (worker == null) {
            throw OjsException.invalid("worker_id is required");
        }
        // active_jobs, else active_job_ids: one that is there but no array is refused, never ignored
        JsonNode listed = request.hasNonNull("active_jobs") ? request.get("active_jobs") : request.get("active_job_ids");
        List<UUID> jobs = new ArrayList<>();
        if (listed != null && !listed.isNull()) {
            if (!listed.isArray() || listed.size() > 10_000) {
                throw OjsException.invalid("active_jobs must be an array of at most 10000 job ids");
            }
            for (JsonNode id : listed) {
                jobs.add(id(id.isString() ? id.asString() : null, "active_jobs"));
            }
        }
        Long lease = request.hasNonNull("visibility_timeout_ms")
                ? number(request, "visibility_timeout_ms", 1, 31L * 24 * 3600 * 1000, 0) : null;
        return ok(service.heartbeat(worker, jobs, lease));
    }

    @Operation(summary = "List dead letters (OJS jobs only); page with next as after")
    @GetMapping(V1 + "/dead-letter")
    ResponseEntity<JsonNode> deadLetters(@RequestParam(required = false) String queue,
            @Parameter(description = "The 'next' of the previous page") @RequestParam(required = false) String after,
            @Parameter(schema = @Schema(type = "integer", minimum = "1", maximum = "1000", defaultValue = "100"))
            @RequestParam(required = false) Integer limit) {
        int size = limit == null ? 100 : limit;
        if (size < 1 || size > 1000) {
            throw OjsException.invalid("limit must be from 1 to 1000");
        }
        ObjectNode answer = json.createObjectNode();
        ArrayNode jobs = answer.putArray("jobs");
        service.deadLetters(queue, after == null ? null : id(after, "after"), size).forEach(jobs::add);
        if (jobs.size() == size) {
            answer.put("next", jobs.get(size - 1).get("id").asString());
        }
        return ok(answer);
    }

    @Operation(summary = "Run a dead letter again")
    @PostMapping(V1 + "/dead-letter/{id}/retry")
    ResponseEntity<JsonNode> retryDeadLetter(@PathVariable String id) {
        return ok(wrap("job", service.retryDeadLetter(id(id, "dead letter"))));
    }

    @Operation(summary = "Discard a dead letter: it ends as the failure it parked instead of")
    @DeleteMapping(V1 + "/dead-letter/{id}")
    ResponseEntity<JsonNode> deleteDeadLetter(@PathVariable String id) {
        UUID job = id(id, "dead letter");
        service.deleteDeadLetter(job);
        ObjectNode answer = json.createObjectNode();
        answer.put("deleted", true);
        answer.put("job_id", job.toString());
        return ok(answer);
    }

    @Operation(summary = "The queues with their job counts")
    @GetMapping(V1 + "/queues")
    ResponseEntity<JsonNode> queues() {
        ObjectNode answer = json.createObjectNode();
        ArrayNode queues = answer.putArray("queues");
        service.queues().forEach(queues::add);
        return ok(answer);
    }

    /** The most recent events first; {@code before} (an event's {@code seq}) pages back. */
    @Operation(summary = "Job events, most recent first")
    @GetMapping(V1 + "/events")
    ResponseEntity<JsonNode> events(
            @Parameter(description = "Comma-separated event types") @RequestParam(required = false) String types,
            @Parameter(description = "Comma-separated queues") @RequestParam(required = false) String queues,
            @Parameter(description = "An event's seq: the page before it") @RequestParam(required = false) Long before,
            @Parameter(schema = @Schema(type = "integer", minimum = "1", maximum = "1000", defaultValue = "100"))
            @RequestParam(required = false) Integer limit) {
        int size = limit == null ? 100 : limit;
        if (size < 1 || size > 1000) {
            throw OjsException.invalid("limit must be from 1 to 1000");
        }
        ObjectNode answer = json.createObjectNode();
        ArrayNode events = answer.putArray("events");
        service.events(list(types), list(queues), before, size).forEach(events::add);
        return ok(answer);
    }

    private ResponseEntity<JsonNode> ok(ObjectNode body) {
        return ResponseEntity.ok().contentType(OjsHeaders.OJS_JSON).body(body);
    }

    private ObjectNode wrap(String name, ObjectNode value) {
        ObjectNode answer = json.createObjectNode();
        answer.set(name, value);
        return answer;
    }

    /** The body as JSON: an object, of a JSON content type (OJS's own or plain JSON). */
    private JsonNode read(@Nullable byte[] body, @Nullable String contentType) {
        if (contentType != null && !contentType.isBlank()) {
            MediaType type;
            try {
                type = MediaType.parseMediaType(contentType);
            } catch (IllegalArgumentException e) {
                throw OjsException.invalid("Content-Type " + contentType + " is not a media type");
            }
            if (!type.isCompatibleWith(MediaType.APPLICATION_JSON) && !type.isCompatibleWith(OjsHeaders.OJS_JSON)) {
                throw OjsException.invalid("Content-Type must be application/openjobspec+json or application/json");
            }
        }
        if (body == null || body.length == 0) {
            throw OjsException.payload("the request needs a JSON body");
        }
        if (new String(body, java.nio.charset.StandardCharsets.UTF_8).contains("\\u0000")) {
            throw OjsException.invalid("strings may not hold the NUL character (\\u0000): PostgreSQL cannot store it");
        }
        JsonNode parsed;
        try {
            parsed = json.readTree(body);
        } catch (JacksonException e) {
            throw OjsException.payload("the body is not valid JSON: " + e.getOriginalMessage());
        }
        if (parsed == null || !parsed.isObject()) {
            throw OjsException.payload("the body must be a JSON object");
        }
        return parsed;
    }

    private static UUID id(@Nullable String value, String what) {
        if (value == null) {
            throw OjsException.invalid(what + " is required");
        }
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw OjsException.invalid(what + " must be a UUID");
        }
    }

    private static @Nullable String text(JsonNode request, String field) {
        JsonNode value = request.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isString()) {
            throw OjsException.invalid(field + " must be a string");
        }
        return value.asString();
    }

    private static long number(JsonNode request, String field, long least, long most, long otherwise) {
        JsonNode value = request.get(field);
        if (value == null || value.isNull()) {
            return otherwise;
        }
        if (!OjsEnvelope.whole(value) || value.asLong() < least || value.asLong() > most) {
            throw OjsException.invalid(field + " must be a whole number from " + least + " to " + most);
        }
        return value.asLong();
    }

    /** The attempt an ack or nack is for (Blackboard's extension: the fence of a late answer), if given. */
    private static @Nullable Integer attempt(JsonNode request) {
        return request.hasNonNull("attempt") ? (int) number(request, "attempt", 1, Integer.MAX_VALUE, 0) : null;
    }

    private static @Nullable List<String> list(@Nullable String commaSeparated) {
        if (commaSeparated == null || commaSeparated.isBlank()) {
            return null;
        }
        return Arrays.stream(commaSeparated.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }
}
