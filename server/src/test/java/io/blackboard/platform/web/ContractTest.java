package io.blackboard.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import io.blackboard.platform.web.ContractCases.Case;
import io.blackboard.platform.web.ContractCases.Json;
import io.blackboard.platform.web.ContractCases.Param;
import io.blackboard.platform.web.ContractCases.Role;
import io.blackboard.platform.web.OpenApiContract.Operation;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import tools.jackson.databind.JsonNode;

/**
 * The OpenAPI document is the contract, and every operation in it keeps it under hostile input
 * (issue 28). For each operation the document lists, the test sends a valid request built from
 * its schemas with every role's token (the worker's own, a bogus one and none too), then
 * {@code contract.tries} requests drawn by a seeded random: valid ones, and ones mutated into
 * wrong types, missing and extra fields, out-of-range numbers, hostile strings and ids, deep
 * nesting, malformed JSON, wrong and missing content types and oversize bodies. Ids name rows
 * seeded for the operation (a worker, its function block, a pending, a held and a parked job), so
 * valid requests reach deep code; the database is seeded afresh whenever a request changed it.
 *
 * <p>A request fails the contract when it gets no answer, a 5xx other than a documented 503, a
 * status its operation does not document, a body that breaks the documented schema of its status
 * and media type, a success although the document calls the request invalid (or the operation
 * needs credentials it lacked), or a refusal (4xx) that changed the database. A failing request is
 * shrunk (fields, parameters and values removed or halved while it still fails the same way) and
 * reported as a curl line with the status and the reason.
 *
 * <p>{@code -Dcontract.seed=N} (default 28) or {@code -Dcontract.seed=random}, and
 * {@code -Dcontract.tries=N} (default 30) per operation; the seed used is printed (docs/guarantees.md).
 */
class ContractTest extends IntegrationTest {

    private static final long SEED = seed(System.getProperty("contract.seed", "28"));
    private static final int TRIES = Integer.getInteger("contract.tries", 30);
    private static final int SHRINK_STEPS = 60;
    private static final Path CASES = Path.of("target", "contract-cases");
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /** What the server answered, or the error that stood for an answer. */
    record Answer(int status, String contentType, String body, String error) {
    }

    /** A request that broke the contract: the same kind and status is the same failure. */
    record Finding(String kind, int status, String detail) {

        String key() {
            return kind + " " + status;
        }
    }

    record Outcome(String curl, Answer answer, Finding finding) {
    }

    private OpenApiContract contract;
    private ContractCases cases;
    private List<String> tables;
    private Map<String, String> fixtures = Map.of();

    @TestFactory
    Stream<DynamicTest> everyOperationKeepsTheDocumentedContract() {
        Api.Response docs = api.as(null).get("/v3/api-docs");
        assertThat(docs.status()).as(docs.toString()).isEqualTo(200);
        contract = new OpenApiContract(docs.body());
        cases = new ContractCases(contract);
        tables = jdbc.sql("""
                select table_name from information_schema.tables
                 where table_schema = current_schema() and table_type = 'BASE TABLE'
                   and table_name <> 'flyway_schema_history' order by table_name
                """).query(String.class).list();
        List<Operation> operations = contract.operations();
        assertThat(operations).as("operations in the document").hasSizeGreaterThan(20);
        System.out.printf("ContractTest: seed %d, %d tries per operation, %d operations "
                + "(again: -Dcontract.seed=%d -Dcontract.tries=%d)%n", SEED, TRIES, operations.size(), SEED, TRIES);
        return operations.stream().map(op -> DynamicTest.dynamicTest(op.name(), () -> keepsTheContract(op)));
    }

    private void keepsTheContract(Operation operation) {
        Random random = new Random(SEED * 31 + operation.name().hashCode());
        List<Case> planned = new ArrayList<>();
        for (Role role : Role.values()) {
            planned.add(cases.valid(operation, random, role));
        }
        for (int i = 0; i < TRIES; i++) {
            Role role = Role.values()[random.nextInt(Role.values().length)];
            Case valid = cases.valid(operation, random, random.nextInt(3) == 0 ? Role.ALL : role);
            planned.add(random.nextInt(4) == 0 ? valid : cases.mutate(valid, operation, random));
        }
        reseed();
        Map<String, String> failures = new LinkedHashMap<>();
        for (Case c : planned) {
            Outcome outcome = run(operation, c);
            if (outcome.finding() != null && !failures.containsKey(outcome.finding().key())) {
                failures.put(outcome.finding().key(), shrink(operation, c, outcome));
            }
        }
        assertThat(failures.values()).as("%s breaks its contract (seed %d): ", operation.name(), SEED).isEmpty();
    }

    /** Sends the case against freshly seeded rows and judges the answer; reseeds when it changed anything. */
    private Outcome run(Operation operation, Case c) {
        String before = fingerprint();
        HttpRequest request = request(operation, c);
        String curl = curl(request, c);
        Answer answer = send(request);
        boolean changed = !fingerprint().equals(before);
        Finding finding = judge(operation, c, answer, changed);
        if (changed) {
            reseed();
        }
        return new Outcome(curl, answer, finding);
    }

    private Finding judge(Operation operation, Case c, Answer answer, boolean changed) {
        int status = answer.status();
        if (answer.error() != null) {
            return new Finding("no answer", 0, answer.error());
        }
        JsonNode documented = operation.response(status);
        if (status >= 500 && !(status == 503 && documented != null)) {
            return new Finding("server error", status, abbreviate(answer.body()));
        }
        if (status >= 400 && status < 500 && changed) {
            return new Finding("refused yet changed the database", status, abbreviate(answer.body()));
        }
        if (documented == null) {
            return new Finding("status not documented", status, "documented: " + operation.documentedStatuses()
                    + "; answered " + answer.contentType() + " " + abbreviate(answer.body()));
        }
        if (status < 300 && invalid(operation, c)) {
            return new Finding("accepted a request the document calls invalid", status, c.kind());
        }
        if (status < 300 && contract.secured(operation) && (c.role() == Role.NONE || c.role() == Role.BOGUS)) {
            return new Finding("answered without credentials", status, c.role().name());
        }
        return bodyFinding(documented, answer);
    }

    private boolean invalid(Operation operation, Case c) {
        if (c.invalid() || cases.parametersBreak(operation, c)) {
            return true;
        }
        if (c.body() instanceof Json json && "application/json".equals(c.contentType())) {
            return !contract.violations(operation.jsonRequestSchema(), json.tree()).isEmpty();
        }
        return false;
    }

    /** The body against the schema documented for its status and media type. */
    private Finding bodyFinding(JsonNode documented, Answer answer) {
        JsonNode content = documented.path("content");
        if (answer.body().isEmpty()) {
            return null;
        }
        String mediaType = answer.contentType().replaceAll(";.*", "").trim();
        JsonNode media = content.has(mediaType) ? content.get(mediaType) : content.get("*/*");
        if (media == null) {
            return new Finding("media type not documented", answer.status(), "answered " + mediaType
                    + ", documented " + content.propertyNames() + ": " + abbreviate(answer.body()));
        }
        if (!mediaType.endsWith("json") || !media.has("schema")) {
            return null;
        }
        JsonNode body;
        try {
            body = ContractCases.JSON.readTree(answer.body());
        } catch (RuntimeException e) {
            return new Finding("body is not JSON", answer.status(), abbreviate(answer.body()));
        }
        List<String> violations = contract.violations(media.get("schema"), body);
        return violations.isEmpty() ? null : new Finding("body breaks the documented schema", answer.status(),
                violations + " in " + abbreviate(answer.body()));
    }

    /** The smallest case found that still fails the same way, as a curl line with its status and reason. */
    private String shrink(Operation operation, Case failing, Outcome outcome) {
        Case best = failing;
        Outcome bestOutcome = outcome;
        int steps = 0;
        boolean progress = true;
        while (progress && steps < SHRINK_STEPS) {
            progress = false;
            for (Case candidate : cases.simpler(best)) {
                if (++steps > SHRINK_STEPS) {
                    break;
                }
                Outcome tried = run(operation, candidate);
                if (tried.finding() != null && tried.finding().key().equals(outcome.finding().key())) {
                    best = candidate;
                    bestOutcome = tried;
                    progress = true;
                    break;
                }
            }
        }
        Finding finding = bestOutcome.finding();
        return "\n  " + finding.kind() + ": " + finding.status() + " (" + best.kind() + ", " + best.role()
                + ", shrunk in " + steps + " steps)\n    " + bestOutcome.curl() + "\n    " + finding.detail();
    }

    // ---- the requests ----

    private HttpRequest request(Operation operation, Case c) {
        String path = operation.path();
        for (Map.Entry<String, String> param : c.path().entrySet()) {
            path = path.replace("{" + param.getKey() + "}", encode(resolve(param.getValue())));
        }
        String query = c.query().stream().map(p -> encode(p.name()) + "=" + encode(resolve(p.value())))
                .collect(Collectors.joining("&"));
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(api.baseUrl() + path
                        + (query.isEmpty() ? "" : "?" + query)))
                .timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json, application/problem+json");
        if (c.role().token != null) {
            request.header("Authorization", "Bearer " + resolve(c.role().token));
        }
        if (c.contentType() != null && !c.contentType().isEmpty()) {
            request.header("Content-Type", c.contentType());
        }
        request.method(operation.method(), c.body() == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(resolve(c.body().text()), StandardCharsets.UTF_8));
        return request.build();
    }

    private static Answer send(HttpRequest request) {
        try {
            HttpResponse<String> response = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                    response.body(), null);
        } catch (IOException e) {
            return new Answer(0, "", "", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The request as a curl line; a body too long or not printable goes to a file under target/. */
    private String curl(HttpRequest request, Case c) {
        StringBuilder curl = new StringBuilder("curl -sS -i -X " + request.method() + " " + quote(request.uri().toString()));
        request.headers().map().forEach((name, values) -> values.forEach(v -> curl.append(" -H ")
                .append(quote(name + ": " + v))));
        if (c.body() != null && request.headers().firstValue("Content-Type").isEmpty()) {
            curl.append(" -H 'Content-Type:'"); // curl would send a form's type; the case sends none
        }
        if (c.body() != null) {
            String body = resolve(c.body().text());
            if (body.length() > 2_000 || body.chars().anyMatch(ch -> ch < 0x20 && ch != '\n')) {
                try {
                    Files.createDirectories(CASES);
                    Path file = CASES.resolve(UUID.randomUUID() + ".body").toAbsolutePath();
                    Files.writeString(file, body);
                    curl.append(" --data-binary @").append(file);
                } catch (IOException e) {
                    curl.append(" --data-binary <").append(body.length()).append(" bytes: ").append(e).append('>');
                }
            } else {
                curl.append(" --data-binary ").append(quote(body));
            }
        }
        return curl.toString();
    }

    private String resolve(String text) {
        for (Map.Entry<String, String> fixture : fixtures.entrySet()) {
            text = text.replace("{{" + fixture.getKey() + "}}", fixture.getValue());
        }
        return text;
    }

    private static String encode(String value) {
        StringBuilder encoded = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char ch = (char) (b & 0xff);
            if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || "-._~".indexOf(ch) >= 0) {
                encoded.append(ch);
            } else {
                encoded.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return encoded.toString();
    }

    private static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }

    private static String abbreviate(String text) {
        return text == null ? "" : text.length() > 300 ? text.substring(0, 300) + "..." : text;
    }

    private static long seed(String value) {
        return value.equals("random") ? new Random().nextLong() : Long.parseLong(value);
    }

    // ---- the database ----

    /** Every table's rows, as one text: a refused request must leave it as it was. */
    private String fingerprint() {
        String sql = tables.stream().map(t -> "select '" + t + "' || ':' || count(*) || ':' || "
                        + "coalesce(md5(string_agg(x::text, '|' order by x::text)), '') as f from " + t + " x")
                .collect(Collectors.joining(" union all "));
        return String.join(",", jdbc.sql(sql).query(String.class).list());
    }

    /** Empties the tables and seeds a worker, its function block and a pending, a held and a parked job. */
    private void reseed() {
        jdbc.sql("truncate " + String.join(", ", tables) + " cascade").update();
        Api.Response me = api.as("test-worker").post("/workers/register", Map.of("name", "contract", "concurrency", 5));
        assertThat(me.status()).as(me.toString()).isEqualTo(201);
        UUID worker = UUID.fromString(me.at("/id").asString());
        String token = me.at("/token").asString();
        UUID block = registerBlocks(worker, List.of(Map.of("name", "contract", "version", "1.0.0",
                "paramsJsonSchema", Map.of("type", "object"), "resultDataJsonSchema", Map.of("type", "object"))))
                .getFirst();
        Api engine = api.as("test-engine");
        Api own = api.as(token);
        engine.post("/blackboard/jobs", Map.of("functionBlockId", block, "type", "EXECUTE", "correlationId", "contract",
                "retryPolicy", Map.of("maxAttempts", 1, "onExhausted", "PARK")));
        UUID parked = UUID.fromString(own.post("/blackboard/job", Map.of("workerId", worker)).at("/0/id").asString());
        Api.Response failed = own.post("/blackboard/job/result", Map.of("jobId", parked, "workerId", worker,
                "status", "FAILURE", "error", Map.of("message", "contract")));
        assertThat(failed.status()).as(failed.toString()).isEqualTo(200);
        engine.post("/blackboard/jobs", List.of(Map.of("functionBlockId", block, "type", "EXECUTE", "correlationId",
                "contract"), Map.of("functionBlockId", block, "type", "EXECUTE", "payload", Map.of("n", 1))));
        own.post("/blackboard/job", Map.of("workerId", worker));
        fixtures = Map.of("worker", worker.toString(), "workerToken", token, "block", block.toString(),
                "parked", parked.toString(), "polled", jobIn("POLLED"), "pending", jobIn("PENDING"));
        assertThat(jobIn("PARKED")).isEqualTo(parked.toString());
    }

    private String jobIn(String status) {
        return jdbc.sql("select id::text from job where status = :status").param("status", status)
                .query(String.class).single();
    }
}
