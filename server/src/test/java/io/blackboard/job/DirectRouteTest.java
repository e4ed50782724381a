package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code POST /blackboard/job}, {@code /blackboard/job/next}, {@code /blackboard/job/result},
 * {@code /blackboard/jobs} and {@code /workers/{id}/ping} answered without Spring MVC (DirectRoutes): the same answer
 * as through Spring MVC, and every request it does not answer (another media type, a body of
 * undeclared length, a bad body, a refusal) answered by Spring MVC exactly as before, with
 * nothing done twice.
 */
class DirectRouteTest extends BlackboardTest {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String JSON_ACCEPT = "application/json, application/problem+json";

    @Autowired
    MeterRegistry registry;

    @Autowired
    JobService jobService;

    @BeforeEach
    void workerWithJobs() {
        workerServingEcho(Map.of("concurrency", 1));
    }

    @Test
    void aBusyWorkersRoundTripIsAnsweredDirectlyWithTheAnswerSpringMvcGives() throws Exception {
        List<UUID> jobs = createJobs(echo, 3);
        assertThat(claim(worker, 1)).containsExactly(jobs.get(0));
        double before = direct();

        Raw direct = send(body(jobs.get(0)), "application/json", false);

        assertThat(direct.status()).as(direct.body()).isEqualTo(200);
        assertThat(direct()).as("answered without Spring MVC").isEqualTo(before + 1);
        // the same request, its body of undeclared length (chunked): Spring MVC answers it
        Raw throughMvc = send(body(jobs.get(1)), "application/json", true);
        assertThat(throughMvc.status()).as(throughMvc.body()).isEqualTo(200);
        assertThat(direct()).as("chunked: through Spring MVC").isEqualTo(before + 1);

        assertThat(direct.headers()).as("the same headers, dates and lengths aside")
                .isEqualTo(throughMvc.headers());
        JsonNode a = JSON.readTree(direct.body());
        JsonNode b = JSON.readTree(throughMvc.body());
        assertThat(fields(a)).isEqualTo(fields(b)).containsExactly("results", "jobs");
        assertThat(fields(a.at("/results/0"))).isEqualTo(fields(b.at("/results/0")));
        assertThat(fields(a.at("/results/0/job"))).isEqualTo(fields(b.at("/results/0/job")));
        assertThat(fields(a.at("/jobs/0"))).isEqualTo(fields(b.at("/jobs/0")));
        for (String same : List.of("/results/0/status", "/results/0/job/outcome", "/results/0/job/result",
                "/jobs/0/attempt", "/jobs/0/status", "/jobs/0/functionBlockId")) {
            assertThat(a.at(same).isMissingNode()).as(same).isFalse();
            assertThat(a.at(same)).as(same).isEqualTo(b.at(same));
        }
        assertThat(a.at("/jobs/0/id").asString()).isEqualTo(jobs.get(1).toString());
        assertThat(b.at("/jobs/0/id").asString()).isEqualTo(jobs.get(2).toString());
        assertThat(kinds(jobs.get(0))).containsExactly("CREATED", "CLAIMED", "PUSHED");
        assertThat(kinds(jobs.get(1))).containsExactly("CREATED", "CLAIMED", "PUSHED");
        assertThat(kinds(jobs.get(2))).containsExactly("CREATED", "CLAIMED");
    }

    /** DirectRoutesTest lists these as answered directly: Spring MVC answers each with application/json too. */
    @Test
    void springMvcAnswersJsonToEveryAcceptHeaderTheDirectWayTakes() throws Exception {
        String idle = Api.json(Map.of("workerId", worker, "limit", 0));
        for (String accept : List.of("application/json", "*/*", "application/json, application/problem+json",
                "APPLICATION/JSON", "*/*, application/json", "application/json,*/*")) {
            Raw throughMvc = send(idle, "application/json", accept, true);
            assertThat(throughMvc.status()).as(accept).isEqualTo(200);
            assertThat(throughMvc.headers().get("content-type")).as(accept).containsExactly("application/json");
            double before = direct();
            Raw direct = send(idle, "application/json", accept, false);
            assertThat(direct()).as("answered directly: " + accept).isEqualTo(before + 1);
            assertThat(direct.headers()).as(accept).isEqualTo(throughMvc.headers());
        }
    }

    /** Spring MVC reads every Accept line: so does the direct way, which leaves a problem type named first to it. */
    @Test
    void everyAcceptLineCounts() throws Exception {
        double before = direct();
        HttpRequest twoLines = HttpRequest.newBuilder(URI.create(api.baseUrl() + "/blackboard/job/next"))
                .header("Content-Type", "application/json")
                .header("Accept", "*/*")
                .header("Accept", "application/problem+json")
                .header("Authorization", "Bearer " + Api.ALL_ROLES)
                .POST(HttpRequest.BodyPublishers.ofString(Api.json(Map.of("workerId", worker, "limit", 0))))
                .build();

        HttpResponse<String> response = CLIENT.send(twoLines, HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).as("Spring MVC's choice")
                .contains("application/problem+json");
        assertThat(direct()).isEqualTo(before);
    }

    @Test
    void theHttpServerRequestsTimerNamesTheRouteOfADirectAnswer() throws Exception {
        List<UUID> jobs = createJobs(echo, 1);
        assertThat(claim(worker, 1)).containsExactly(jobs.get(0));
        long before = settledTimed("/blackboard/job/next");

        assertThat(send(body(jobs.get(0)), "application/json", false).status()).isEqualTo(200);

        awaitTimed("/blackboard/job/next", before + 1);
    }

    @Test
    void whatTheDirectWayDoesNotAnswerSpringMvcAnswersAsBefore() throws Exception {
        UUID job = createJobs(echo, 1).getFirst();
        assertThat(claim(worker, 1)).containsExactly(job);
        String before = row(job);
        double answered = direct();

        assertProblem(raw(send("{\"workerId\": ", "application/json", false)), 400, "");
        assertProblem(raw(send("{\"workerId\": \"" + worker + "\", \"limit\": -1}", "application/json", false)),
                400, "limit");
        assertThat(send(body(job), "text/plain", false).status()).as("another media type").isEqualTo(415);
        // (Spring MVC negotiates as it writes the answer: an unacceptable answer's work is done)
        assertThat(send(Api.json(Map.of("workerId", worker, "limit", 0)), "application/json", "text/html", false)
                .status()).as("not acceptable").isEqualTo(406);
        UUID notServed = registerBlocks(registerWorker("elsewhere"), List.of(block("backup", "1.0.0"))).getFirst();
        assertProblem(api.post("/blackboard/job/next", Map.of("workerId", worker, "results", List.of(Map.of(
                "jobId", job, "workerId", worker, "attempt", 1, "status", "SUCCESS")), "functionBlockIds",
                List.of(notServed))), 422, notServed.toString());
        assertProblem(api.post("/blackboard/job/next", Map.of("workerId", UUID.randomUUID(), "limit", 1)), 404,
                "");
        assertThat(api.as("nobody").post("/blackboard/job/next", Map.of("workerId", worker, "limit", 1)).status())
                .as("no valid token: the security chain still answers first").isEqualTo(401);
        assertThat(row(job)).as("the refused push rolled back: nothing landed").isEqualTo(before);
        assertThat(direct()).as("none of these answered directly").isEqualTo(answered);

        String pushAgain = body(job);
        assertThat(send(pushAgain, "application/json", false).status()).isEqualTo(200);
        assertThat(send(pushAgain, "application/json", false).status()).as("a repeat: 200 again").isEqualTo(200);
        assertThat(kinds(job)).as("one push, written once").containsExactly("CREATED", "CLAIMED", "PUSHED");
        assertThat(direct()).isEqualTo(answered + 2);
    }

    private static Api.Response raw(Raw raw) {
        String type = raw.headers().getOrDefault("content-type", List.of("")).getFirst();
        return new Api.Response(raw.status(), type, raw.body(), JSON.readTree(raw.body()), null);
    }

    @Test
    void aPushIsAnsweredDirectlyWithTheAnswerSpringMvcGivesAndRefusedAsBefore() throws Exception {
        List<UUID> jobs = createJobs(echo, 2);
        UUID first = claim(worker, 1).getFirst();
        double before = direct();

        Raw direct = send("/blackboard/job/result", push(first), "application/json", JSON_ACCEPT, false);
        assertThat(direct.status()).as(direct.body()).isEqualTo(200);
        assertThat(direct()).isEqualTo(before + 1);
        UUID second = claim(worker, 1).getFirst(); // a poll: answered directly too
        assertThat(direct()).isEqualTo(before + 2);
        Raw throughMvc = send("/blackboard/job/result", push(second), "application/json", JSON_ACCEPT, true);
        assertThat(throughMvc.status()).as(throughMvc.body()).isEqualTo(200);
        assertThat(direct()).isEqualTo(before + 2);
        assertThat(direct.headers()).isEqualTo(throughMvc.headers());
        assertThat(fields(JSON.readTree(direct.body()))).isEqualTo(fields(JSON.readTree(throughMvc.body())));
        assertThat(jobs).containsExactlyInAnyOrder(first, second);

        Raw repeat = send("/blackboard/job/result", push(first), "application/json", JSON_ACCEPT, false);
        assertThat(repeat.status()).as("the same push again").isEqualTo(200);
        Raw stale = send("/blackboard/job/result", push(first).replace("SUCCESS", "FAILURE"), "application/json",
                JSON_ACCEPT, false);
        assertProblem(raw(stale), 409, "");
        assertThat(kinds(first)).containsExactly("CREATED", "CLAIMED", "PUSHED");
        assertThat(direct()).as("the repeat answered directly, the conflict by Spring MVC").isEqualTo(before + 3);
    }

    @Test
    void aBatchPushIsAnsweredDirectlyWithTheAnswerSpringMvcGivesAndRefusedAsBefore() throws Exception {
        List<UUID> jobs = createJobs(echo, 4);
        long timedBefore = settledTimed("/blackboard/job/results");
        UUID first = claim(worker, 1).getFirst();
        double before = direct();

        // a landed push and one of a job the worker does not hold: each item answered on its own
        Raw direct = send("/blackboard/job/results", "[" + push(first) + "," + push(jobs.get(3)) + "]",
                "application/json", JSON_ACCEPT, false);
        assertThat(direct.status()).as(direct.body()).isEqualTo(200);
        assertThat(direct()).isEqualTo(before + 1);
        UUID second = claim(worker, 1).getFirst();
        Raw throughMvc = send("/blackboard/job/results", "[" + push(second) + "," + push(jobs.get(3)) + "]",
                "application/json", JSON_ACCEPT, true);
        assertThat(throughMvc.status()).as(throughMvc.body()).isEqualTo(200);
        assertThat(direct()).as("a poll direct, the chunked batch through Spring MVC").isEqualTo(before + 2);
        assertThat(direct.headers()).isEqualTo(throughMvc.headers());
        JsonNode a = JSON.readTree(direct.body());
        JsonNode b = JSON.readTree(throughMvc.body());
        assertThat(a.size()).isEqualTo(2);
        assertThat(a.at("/0/jobId").asString()).isEqualTo(first.toString());
        assertThat(b.at("/0/jobId").asString()).isEqualTo(second.toString());
        for (String item : List.of("/0", "/0/job", "/1", "/1/problem")) {
            assertThat(fields(a.at(item))).as(item).isNotEmpty().isEqualTo(fields(b.at(item)));
        }
        for (String same : List.of("/0/status", "/0/job/status", "/0/job/outcome", "/0/job/result", "/1/jobId",
                "/1/status", "/1/problem")) {
            assertThat(a.at(same).isMissingNode()).as(same).isFalse();
            assertThat(a.at(same)).as(same).isEqualTo(b.at(same));
        }
        assertThat(a.at("/1/status").asInt()).as("not this worker's claim").isNotEqualTo(200);
        assertThat(kinds(first)).containsExactly("CREATED", "CLAIMED", "PUSHED");
        assertThat(kinds(jobs.get(3))).as("the refused item changed nothing").containsExactly("CREATED");
        awaitTimed("/blackboard/job/results", timedBefore + 2);

        // refusals of the whole batch are Spring MVC's, as before
        double beforeRefusals = direct();
        assertProblem(raw(send("/blackboard/job/results", "[]", "application/json", JSON_ACCEPT, false)), 400, "");
        assertProblem(raw(send("/blackboard/job/results", "[null]", "application/json", JSON_ACCEPT, false)), 400,
                "");
        assertProblem(raw(send("/blackboard/job/results", "[" + push(jobs.get(2)).replace("\"SUCCESS\"", "null")
                + "]", "application/json", JSON_ACCEPT, false)), 400, "status");
        assertProblem(raw(send("/blackboard/job/results", "{}", "application/json", JSON_ACCEPT, false)), 400, "");
        String unknownWorker = push(jobs.get(2)).replace(worker.toString(), UUID.randomUUID().toString());
        assertThat(send("/blackboard/job/results", "[" + unknownWorker + "]", "application/json", JSON_ACCEPT, false)
                .status()).as("another worker's push, by this token: refused").isNotEqualTo(200);
        assertThat(direct()).as("none of these answered directly").isEqualTo(beforeRefusals);
        assertThat(kinds(jobs.get(2))).containsExactly("CREATED");
    }

    @Test
    void aPollIsAnsweredDirectlyWithTheAnswerSpringMvcGivesAndRefusedAsBefore() throws Exception {
        List<UUID> jobs = createJobs(echo, 2);
        long timedBefore = settledTimed("/blackboard/job");
        double before = direct();
        String poll = Api.json(Map.of("workerId", worker, "limit", 1));

        Raw direct = send("/blackboard/job", poll, "application/json", JSON_ACCEPT, false);
        assertThat(direct.status()).as(direct.body()).isEqualTo(200);
        assertThat(direct()).isEqualTo(before + 1);
        JsonNode first = JSON.readTree(direct.body());
        assertThat(first.at("/0/id").asString()).isEqualTo(jobs.get(0).toString());
        assertThat(push(jobs.get(0), worker, Map.of()).status()).isEqualTo(200); // a push, answered directly
        Raw throughMvc = send("/blackboard/job", poll, "application/json", JSON_ACCEPT, true);
        assertThat(throughMvc.status()).as(throughMvc.body()).isEqualTo(200);
        assertThat(direct()).as("chunked: through Spring MVC").isEqualTo(before + 2);
        JsonNode second = JSON.readTree(throughMvc.body());
        assertThat(second.at("/0/id").asString()).isEqualTo(jobs.get(1).toString());
        assertThat(direct.headers()).isEqualTo(throughMvc.headers());
        assertThat(fields(first.get(0))).isEqualTo(fields(second.get(0)));
        for (String same : List.of("/0/attempt", "/0/status", "/0/functionBlockId", "/0/type", "/0/workerId")) {
            assertThat(first.at(same).isMissingNode()).as(same).isFalse();
            assertThat(first.at(same)).as(same).isEqualTo(second.at(same));
        }
        awaitTimed("/blackboard/job", timedBefore + 2);

        // a long poll answered directly: it waits, then takes the job created meanwhile
        assertThat(push(jobs.get(1), worker, Map.of()).status()).isEqualTo(200);
        double beforeWaiting = direct();
        var waiting = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return send("/blackboard/job", Api.json(Map.of("workerId", worker, "limit", 1, "waitMs", 10_000)),
                        "application/json", JSON_ACCEPT, false);
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        UUID later = createJob(echo, Map.of()); // a create, answered directly
        Raw woken = waiting.get(15, TimeUnit.SECONDS);
        assertThat(woken.status()).as(woken.body()).isEqualTo(200);
        assertThat(JSON.readTree(woken.body()).at("/0/id").asString()).isEqualTo(later.toString());
        assertThat(direct()).isEqualTo(beforeWaiting + 2);
        double beforeRefusals = direct();

        // refusals are Spring MVC's, as before: an unknown worker, a bad body
        assertProblem(raw(send("/blackboard/job", Api.json(Map.of("workerId", UUID.randomUUID(), "limit", 1)),
                "application/json", JSON_ACCEPT, false)), 404, "");
        assertProblem(raw(send("/blackboard/job", Api.json(Map.of("workerId", worker, "limit", 0)),
                "application/json", JSON_ACCEPT, false)), 400, "");
        assertThat(direct()).isEqualTo(beforeRefusals);
        assertThat(kinds(later)).containsExactly("CREATED", "CLAIMED");
    }

    @Test
    void aCreateIsAnsweredDirectlyWithItsStatusAndTheAnswerSpringMvcGives() throws Exception {
        double before = direct();
        String keyed = Api.json(Map.of("functionBlockId", echo, "type", "EXECUTE", "payload", Map.of("n", 1),
                "idempotencyKey", "direct-1"));

        Raw created = send("/blackboard/jobs", keyed, "application/json", JSON_ACCEPT, false);
        Raw again = send("/blackboard/jobs", keyed, "application/json", JSON_ACCEPT, false);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(again.status()).as("the same key again: the same job, 200").isEqualTo(200);
        assertThat(JSON.readTree(again.body()).get("id")).isEqualTo(JSON.readTree(created.body()).get("id"));
        assertThat(direct()).isEqualTo(before + 2);
        Raw throughMvc = send("/blackboard/jobs", keyed.replace("direct-1", "direct-2"), "application/json",
                JSON_ACCEPT, true);
        assertThat(throughMvc.status()).isEqualTo(201);
        assertThat(created.headers()).isEqualTo(throughMvc.headers());
        assertThat(fields(JSON.readTree(created.body()))).isEqualTo(fields(JSON.readTree(throughMvc.body())));

        String batch = Api.json(List.of(Map.of("functionBlockId", echo, "type", "EXECUTE", "payload", Map.of()),
                Map.of("functionBlockId", echo, "type", "EXECUTE", "payload", Map.of())));
        Raw many = send("/blackboard/jobs", batch, "application/json", JSON_ACCEPT, false);
        assertThat(many.status()).isEqualTo(201);
        assertThat(JSON.readTree(many.body()).size()).isEqualTo(2);
        assertThat(direct()).isEqualTo(before + 3);

        long jobs = count("job");
        assertProblem(raw(send("/blackboard/jobs", keyed.replace(echo.toString(), UUID.randomUUID().toString())
                .replace("direct-1", "direct-3"), "application/json", JSON_ACCEPT, false)), 422, "");
        assertProblem(raw(send("/blackboard/jobs", keyed.replace("\"n\":1", "\"n\":2"), "application/json",
                JSON_ACCEPT, false)), 409, "direct-1");
        assertProblem(raw(send("/blackboard/jobs", "[", "application/json", JSON_ACCEPT, false)), 400, "");
        // a body the direct way cannot create from is refused as Spring MVC refuses it: the
        // position and the field named
        Map<String, Object> good = Map.of("functionBlockId", echo, "type", "EXECUTE");
        assertProblem(raw(send("/blackboard/jobs", Api.json(List.of(good, Map.of("functionBlockId", echo,
                "type", "EXECUTE", "priority", 5_000_000))), "application/json", JSON_ACCEPT, false)), 400,
                "[1].priority");
        assertProblem(raw(send("/blackboard/jobs", "[" + Api.json(good) + ", 7]", "application/json", JSON_ACCEPT,
                false)), 400, "[1] must be a JSON object");
        assertProblem(raw(send("/blackboard/jobs", "[]", "application/json", JSON_ACCEPT, false)), 400,
                "holds 1 to 1000 jobs");
        assertProblem(raw(send("/blackboard/jobs", "[null]", "application/json", JSON_ACCEPT, false)), 400,
                "[0] must be a JSON object");
        assertProblem(raw(send("/blackboard/jobs", "\"job\"", "application/json", JSON_ACCEPT, false)), 400,
                "a job (a JSON object) or an array");
        assertThat(count("job")).as("nothing created by a refusal").isEqualTo(jobs);
        assertThat(direct()).isEqualTo(before + 3);
    }

    @Test
    void aHeartbeatIsAnsweredDirectlyWithTheAnswerSpringMvcGivesAndTimedUnderItsPattern() throws Exception {
        String ping = worker + "/ping";
        long timedBefore = settledTimed("/workers/{id}/ping");
        double before = direct();

        Raw direct = send("/workers/" + ping, "{\"activeJobIds\": []}", "application/json", JSON_ACCEPT, false);
        assertThat(direct.status()).as(direct.body()).isEqualTo(200);
        assertThat(direct()).isEqualTo(before + 1);
        Raw throughMvc = send("/workers/" + ping, "{\"activeJobIds\": []}", "application/json", JSON_ACCEPT, true);
        assertThat(throughMvc.status()).isEqualTo(200);
        assertThat(direct.headers()).isEqualTo(throughMvc.headers());
        assertThat(fields(JSON.readTree(direct.body()))).isEqualTo(fields(JSON.readTree(throughMvc.body())))
                .contains("state", "directive", "cancelJobIds");
        awaitTimed("/workers/{id}/ping", timedBefore + 2);

        assertProblem(raw(send("/workers/not-a-uuid/ping", "{}", "application/json", JSON_ACCEPT, false)), 400,
                "");
        String encoded = worker.toString().substring(0, 35) + "%" + Integer.toHexString(worker.toString().charAt(35));
        assertThat(send("/workers/" + encoded + "/ping", "{}", "application/json", JSON_ACCEPT, false).status())
                .as("a percent-encoded id is the same id").isEqualTo(200);
        assertProblem(raw(send("/workers/" + UUID.randomUUID() + "/ping", "{}", "application/json", JSON_ACCEPT,
                false)), 404, "");
        assertThat(api.post("/workers/" + ping, null).status()).as("no body: Spring MVC").isEqualTo(200);
        assertThat(direct()).isEqualTo(before + 2);
    }

    /** The timer's count once the observations of earlier requests (recorded after their answers) are in. */
    private long settledTimed(String uri) throws InterruptedException {
        long count = timed(uri, 200);
        while (true) {
            Thread.sleep(100);
            long now = timed(uri, 200);
            if (now == count) {
                return count;
            }
            count = now;
        }
    }

    private void awaitTimed(String uri, long count) throws InterruptedException {
        // recorded as the observation ends, after the answer went out
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (timed(uri, 200) < count && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(timed(uri, 200)).as(registry.find("http.server.requests").timers().stream()
                .map(timer -> timer.getId().getTag("uri")).distinct().toList().toString()).isEqualTo(count);
    }

    private String push(UUID job) {
        return Api.json(Map.of("jobId", job, "workerId", worker, "attempt", 1, "status", "SUCCESS",
                "result", Map.of("n", 1)));
    }

    private String body(UUID job) {
        return Api.json(Map.of("workerId", worker, "limit", 1, "results", List.of(Map.of("jobId", job,
                "workerId", worker, "attempt", 1, "status", "SUCCESS", "result", Map.of("n", 1)))));
    }

    private record Raw(int status, Map<String, List<String>> headers, String body) {
    }

    private Raw send(String body, String contentType, boolean chunked) throws IOException, InterruptedException {
        return send(body, contentType, "application/json, application/problem+json", chunked);
    }

    private Raw send(String body, String contentType, String accept, boolean chunked)
            throws IOException, InterruptedException {
        return send("/blackboard/job/next", body, contentType, accept, chunked);
    }

    /** A raw POST, its body sent with its length or chunked. */
    private Raw send(String path, String body, String contentType, String accept, boolean chunked)
            throws IOException, InterruptedException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        HttpRequest request = HttpRequest.newBuilder(URI.create(api.baseUrl() + path))
                .header("Content-Type", contentType)
                .header("Accept", accept)
                .header("Authorization", "Bearer " + Api.ALL_ROLES)
                .POST(chunked ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes))
                        : HttpRequest.BodyPublishers.ofByteArray(bytes))
                .build();
        HttpResponse<String> response = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
        Map<String, List<String>> headers = new java.util.TreeMap<>(response.headers().map());
        headers.keySet().removeAll(List.of("date", "content-length", "transfer-encoding"));
        return new Raw(response.statusCode(), headers, response.body());
    }

    private double direct() {
        return registry.get("blackboard.http.requests.direct").counter().count();
    }

    private long timed(String uri, int status) {
        var timer = registry.find("http.server.requests").tag("uri", uri)
                .tag("status", String.valueOf(status)).timer();
        return timer == null ? 0 : timer.count();
    }

    private static List<String> fields(JsonNode node) {
        return node.propertyNames().stream().toList();
    }

    private List<String> kinds(UUID jobId) {
        return jobService.events(jobId, JobStore.FIRST_EVENT, 1000).stream().map(event -> event.kind().name()).toList();
    }
}
