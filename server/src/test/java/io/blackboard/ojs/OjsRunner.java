package io.blackboard.ojs;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs one OJS conformance case against a server: its setup, steps and teardown in order, each
 * HTTP step a real request, its assertions checked before the next step. Steps that name each
 * other in {@code parallel_with} are sent at once (each after its own {@code delay_ms}) and
 * checked in order afterwards. A case stops at its first failing step, with an
 * {@link OjsFailure} saying which case, step and assertions, and what the server answered.
 */
final class OjsRunner {

    /** Where the server is, and the bearer tokens: one for the worker paths, one for the rest. */
    record Target(String baseUrl, String token, String workerToken) {

        String tokenFor(String path) {
            return path.startsWith("/ojs/v1/workers/") ? workerToken : token;
        }
    }

    /** A failed step; {@link #summary} is the failures alone, for the report's one line. */
    static final class OjsFailure extends AssertionError {

        private final String summary;

        OjsFailure(String message, String summary) {
            super(message);
            this.summary = summary;
        }

        String summary() {
            return summary;
        }
    }

    private static final Set<String> CASE_FIELDS = Set.of("test_id", "level", "category", "name", "description",
            "spec_ref", "tags", "setup", "steps", "teardown");
    private static final Set<String> STEP_FIELDS = Set.of("id", "action", "intent", "path", "headers", "body",
            "raw_body", "delay_ms", "duration_ms", "description", "assertions", "parallel_with", "captures");
    private static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD");
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final Target target;
    private final HttpClient http;

    OjsRunner(Target target, HttpClient http) {
        this.target = target;
        this.http = http;
    }

    /** One request outside any case (the manifest check), with the producer token. */
    OjsResponse get(String path) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(target.baseUrl() + path)).timeout(REQUEST_TIMEOUT)
                .header("Accept", "application/openjobspec+json, application/json");
        authorize(request, path);
        return send(request.GET().build());
    }

    /** A JSON POST outside any case (isolation on a deployment), with the producer token. */
    OjsResponse post(String path, String json) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(target.baseUrl() + path)).timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json").header("Accept", "application/json");
        authorize(request, path);
        return send(request.POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    /** Runs the case; throws an {@link AssertionError} at its first failing step. */
    void run(OjsCase c) {
        validate(c);
        ObjectNode context = JsonNodeFactory.instance.objectNode();
        context.putObject("steps");
        context.putObject("captures");
        Throwable failure = null;
        try {
            runSteps(c, "setup", c.setup(), context);
            runSteps(c, "step", c.steps(), context);
        } catch (RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            teardown(c, context, failure);
        }
    }

    private void teardown(OjsCase c, ObjectNode context, Throwable failure) {
        try {
            runSteps(c, "teardown", c.teardown(), context);
        } catch (RuntimeException | Error e) {
            if (failure == null) {
                throw e;
            }
            failure.addSuppressed(e);
        }
    }

    private static void validate(OjsCase c) {
        for (String field : c.root().propertyNames()) {
            require(CASE_FIELDS.contains(field), c, "unknown case field '" + field + "'");
        }
        for (String field : List.of("test_id", "level", "category", "name", "steps")) {
            require(c.root().has(field), c, "the case has no '" + field + "'");
        }
        Set<String> ids = new HashSet<>();
        for (List<JsonNode> phase : List.of(c.setup(), c.steps(), c.teardown())) {
            for (JsonNode step : phase) {
                validate(c, step, ids);
            }
        }
    }

    private static void validate(OjsCase c, JsonNode step, Set<String> ids) {
        String id = step.path("id").asString("");
        require(!id.isEmpty() && ids.add(id), c, "a step needs an id of its own: " + step);
        for (String field : step.propertyNames()) {
            require(STEP_FIELDS.contains(field), c, "step '" + id + "': unknown step field '" + field + "'");
        }
        String action = action(step);
        require(METHODS.contains(action) || action.equals("WAIT") || action.equals("ASSERT"), c,
                "step '" + id + "': unknown action '" + action + "'");
        require(!METHODS.contains(action) || step.path("path").asString("").startsWith("/"), c,
                "step '" + id + "': an HTTP step needs a path starting with /");
        require(!(step.has("body") && step.has("raw_body")), c, "step '" + id + "': body and raw_body both given");
    }

    private static void require(boolean condition, OjsCase c, String problem) {
        if (!condition) {
            throw new IllegalArgumentException(c.displayName() + ": " + problem);
        }
    }

    private static String action(JsonNode step) {
        return step.path("action").asString("").toUpperCase(Locale.ROOT);
    }

    private void runSteps(OjsCase c, String phase, List<JsonNode> steps, ObjectNode context) {
        int i = 0;
        while (i < steps.size()) {
            List<JsonNode> group = parallelGroup(c, steps, i);
            if (group.size() == 1) {
                runStep(c, phase, group.getFirst(), context);
            } else {
                runParallel(c, phase, group, context);
            }
            i += group.size();
        }
    }

    /** The step at {@code from} and the steps right after it that the group names in parallel_with, or that name it. */
    private static List<JsonNode> parallelGroup(OjsCase c, List<JsonNode> steps, int from) {
        Set<String> linked = new HashSet<>(partners(steps.get(from)));
        Set<String> members = new HashSet<>(Set.of(steps.get(from).path("id").asString()));
        List<JsonNode> group = new ArrayList<>(List.of(steps.get(from)));
        for (int i = from + 1; i < steps.size() && !linked.isEmpty(); i++) {
            JsonNode next = steps.get(i);
            String id = next.path("id").asString();
            if (!linked.contains(id) && partners(next).stream().noneMatch(members::contains)) {
                break;
            }
            group.add(next);
            members.add(id);
            linked.addAll(partners(next));
        }
        linked.removeAll(members);
        require(linked.isEmpty(), c, "parallel_with names steps that do not directly follow it: " + linked);
        return group;
    }

    private static List<String> partners(JsonNode step) {
        JsonNode partners = step.get("parallel_with");
        if (partners == null || partners.isNull()) {
            return List.of();
        }
        List<String> ids = new ArrayList<>();
        if (partners.isArray()) {
            partners.forEach(p -> ids.add(p.asString()));
        } else {
            ids.add(partners.asString());
        }
        return ids;
    }

    private void runStep(OjsCase c, String phase, JsonNode step, ObjectNode context) {
        String action = action(step);
        if (action.equals("WAIT")) {
            // duration_ms, or when it is absent delay_ms: a WAIT waits once
            sleep(step.path("duration_ms").asLong(0) > 0 ? step.path("duration_ms").asLong() : step.path("delay_ms").asLong(0));
            return;
        }
        sleep(step.path("delay_ms").asLong(0));
        if (action.equals("ASSERT")) {
            check(c, phase, step, null, context);
            return;
        }
        OjsResponse response = send(prepare(c, phase, step, context));
        record(step, response, context);
        check(c, phase, step, response, context);
    }

    /** Sends the group's requests at once, then records and checks them in step order. */
    private void runParallel(OjsCase c, String phase, List<JsonNode> group, ObjectNode context) {
        for (JsonNode step : group) {
            require(METHODS.contains(action(step)), c, "step '" + step.path("id").asString() + "': only HTTP steps run in parallel");
        }
        List<HttpRequest> requests = group.stream().map(step -> prepare(c, phase, step, context)).toList();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<OjsResponse>> answers = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < group.size(); i++) {
                long delay = group.get(i).path("delay_ms").asLong(0);
                HttpRequest request = requests.get(i);
                answers.add(threads.submit(() -> {
                    start.await();
                    sleep(delay);
                    return send(request);
                }));
            }
            start.countDown();
        }
        for (int i = 0; i < group.size(); i++) {
            record(group.get(i), join(answers.get(i)), context);
        }
        for (int i = 0; i < group.size(); i++) {
            JsonNode step = group.get(i);
            check(c, phase, step, join(answers.get(i)), context);
        }
    }

    private static OjsResponse join(Future<OjsResponse> answer) {
        try {
            return answer.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof AssertionError a ? a : new AssertionError(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** An HTTP step's request, its templates resolved; a template that does not resolve fails the step. */
    private HttpRequest prepare(OjsCase c, String phase, JsonNode step, ObjectNode context) {
        String method = action(step);
        String path = OjsTemplates.interpolate(step.path("path").asString(), context);
        JsonNode headers = OjsTemplates.resolve(step.get("headers"), context);
        JsonNode body = OjsTemplates.resolve(step.get("body"), context);
        JsonNode raw = OjsTemplates.resolve(step.get("raw_body"), context);
        List<String> unresolved = new ArrayList<>(OjsTemplates.unresolved(JsonNodeFactory.instance.stringNode(path)));
        unresolved.addAll(OjsTemplates.unresolved(headers));
        unresolved.addAll(OjsTemplates.unresolved(body));
        unresolved.addAll(OjsTemplates.unresolved(raw));
        if (!unresolved.isEmpty()) {
            fail(c, phase, step.path("id").asString(), method + " " + path,
                    List.of("unresolved templates in the request (no such earlier step or value): " + unresolved), null);
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(target.baseUrl() + path)).timeout(REQUEST_TIMEOUT);
        authorize(request, path);
        String payload = payload(step, body, raw);
        headers(request, headers, payload != null);
        request.method(method, payload == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(payload));
        return request.build();
    }

    /** The step's headers, and the OJS content type for a body that names none. */
    private static void headers(HttpRequest.Builder request, JsonNode headers, boolean withBody) {
        boolean contentType = false;
        if (headers != null) {
            for (Map.Entry<String, JsonNode> header : headers.properties()) {
                request.setHeader(header.getKey(), header.getValue().asString());
                contentType |= header.getKey().equalsIgnoreCase("Content-Type");
            }
        }
        if (withBody && !contentType) {
            request.setHeader("Content-Type", "application/openjobspec+json");
        }
    }

    /** raw_body as written; body as JSON, except a JSON null, which sends no body at all. */
    private static String payload(JsonNode step, JsonNode body, JsonNode raw) {
        if (step.has("raw_body")) {
            return raw.isString() ? raw.stringValue() : raw.toString();
        }
        if (body == null || body.isNull()) {
            return null;
        }
        return body.toString();
    }

    private void authorize(HttpRequest.Builder request, String path) {
        String token = target.tokenFor(path);
        if (token != null && !token.isBlank()) {
            request.setHeader("Authorization", "Bearer " + token);
        }
    }

    private OjsResponse send(HttpRequest request) {
        long start = System.nanoTime();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            long millis = (System.nanoTime() - start) / 1_000_000;
            return OjsResponse.of(response.statusCode(), response.headers().map(), response.body(), millis);
        } catch (IOException e) {
            throw new AssertionError(request.method() + " " + request.uri() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Keeps the response for later templates, and the step's captures. */
    private static void record(JsonNode step, OjsResponse response, ObjectNode context) {
        String id = step.path("id").asString();
        context.withObjectProperty("steps").putObject(id).set("response", response.asContext());
        JsonNode captures = step.get("captures");
        if (captures != null && captures.isObject()) {
            for (Map.Entry<String, JsonNode> capture : captures.properties()) {
                JsonNode value = JsonPathLite.resolve(response.body(), capture.getValue().asString());
                if (value != null) {
                    context.withObjectProperty("captures").set(capture.getKey(), value);
                }
            }
        }
    }

    private void check(OjsCase c, String phase, JsonNode step, OjsResponse response, ObjectNode context) {
        JsonNode assertions = OjsTemplates.resolve(step.get("assertions"), context);
        List<String> failures = new ArrayList<>();
        List<String> unresolved = OjsTemplates.unresolved(assertions);
        if (!unresolved.isEmpty()) {
            failures.add("unresolved templates in the assertions (no such earlier step or value): " + unresolved);
        }
        failures.addAll(OjsAssertions.check(assertions, response, context));
        if (!failures.isEmpty()) {
            String label = response == null ? action(step) : action(step) + " " + OjsTemplates.interpolate(step.path("path").asString(), context);
            fail(c, phase, step.path("id").asString(), label, failures, response);
        }
    }

    private static void fail(OjsCase c, String phase, String id, String label, List<String> failures, OjsResponse response) {
        StringBuilder message = new StringBuilder(c.displayName()).append(": ").append(phase).append(" '").append(id)
                .append("' (").append(label).append(") failed:");
        failures.forEach(f -> message.append("\n  - ").append(f));
        if (response != null) {
            message.append("\n  response: ").append(response.shown());
        }
        throw new OjsFailure(message.toString(), phase + " '" + id + "' (" + label + "): " + String.join(" | ", failures));
    }

    private static void sleep(long millis) {
        if (millis <= 0) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
