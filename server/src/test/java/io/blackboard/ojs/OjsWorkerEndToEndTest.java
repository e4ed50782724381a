package io.blackboard.ojs;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * An OJS worker written against the binding only (sdk/python/examples/ojs_worker.py, two processes
 * of it) and a native Python SDK worker (sdk/python/tests/native_echo_worker.py) serve one function
 * block at once, the block an OJS enqueue of type {@code echo} creates: OJS jobs enqueued through
 * the binding and native jobs created through {@code POST /blackboard/jobs}, some nacked once by
 * the OJS workers. What every worker says it ran, the audit trail and the result feed must agree:
 * each attempt claimed once, each job succeeding once, by the worker its result names. And the
 * example follows the directive an operator sets on its Blackboard worker, which its heartbeat
 * answers as OJS's quiet, running and terminate.
 */
class OjsWorkerEndToEndTest extends IntegrationTest {

    private static final Path PYTHON = Path.of("/usr/bin/python3");
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path LOGS = Path.of("target", "ojs-worker-e2e").toAbsolutePath();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String TYPE = "echo";
    private static final String QUEUE = "e2e";
    private static final int OJS_BY_API = 100;
    private static final int OJS_BY_EXAMPLE = 100;
    private static final int NATIVE = 100;
    private static final int WORK_MS = 5;

    private final Map<String, Process> workers = new HashMap<>();

    /** A line a worker printed for a job it ran. */
    record Ran(String worker, String jobId, int attempt, String outcome) { }

    @AfterEach
    void stopWorkers() throws InterruptedException {
        for (Process process : workers.values()) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
        for (Process process : workers.values()) {
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void ojsWorkersAndANativeWorkerServeOneBlockAndEveryJobIsClaimedOncePerAttemptAndSucceedsOnce()
            throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(PYTHON), "python3 is installed (.ci/run installs it)");
        Files.createDirectories(LOGS);

        // OJS jobs through the binding; the first one creates the implicit block echo@0
        Set<String> ojsJobs = new HashSet<>();
        for (int i = 0; i < OJS_BY_API; i++) {
            Api.Response enqueued = api.post("/ojs/v1/jobs", Map.of("type", TYPE,
                    "args", List.of(Map.of("n", 1000 + i)), "options", Map.of("queue", QUEUE,
                            "retry", Map.of("max_attempts", 3, "initial_interval_ms", 100, "jitter", false))));
            assertThat(enqueued.status()).as(enqueued.toString()).isEqualTo(201);
            assertThat(enqueued.at("/job/state").asString()).isEqualTo("available");
            ojsJobs.add(enqueued.at("/job/id").asString());
        }
        assertThat(jdbc.sql("select version from function_block where name = :name").param("name", TYPE)
                .query(String.class).list()).as("the implicit block").containsExactly("0");

        // the native worker declares that block, then native jobs name it
        start("native-1", List.of(ROOT.resolve("sdk/python/tests/native_echo_worker.py").toString()), Map.of(
                "PYTHONPATH", ROOT.resolve("sdk/python/src").toString(), "BLACKBOARD_URL", api.baseUrl(),
                "BLACKBOARD_WORKER_TOKEN", "test-worker", "BLACKBOARD_WORKER_NAME", "native-1",
                "BLACKBOARD_CONCURRENCY", "2", "BLACKBOARD_POLL_WAIT_MS", "1000", "BLACKBOARD_DRAIN_TIMEOUT_MS", "5000",
                "ECHO_BLOCK", TYPE, "ECHO_VERSION", "0", "ECHO_WORK_MS", String.valueOf(WORK_MS)));
        await(() -> jdbc.sql("""
                select count(*) from worker w join worker_function_block wf on wf.worker_id = w.id
                  join function_block fb on fb.id = wf.function_block_id
                 where w.name = 'native-1' and fb.name = :name and fb.version = '0'""")
                .param("name", TYPE).query(Long.class).single() == 1, Duration.ofSeconds(20), "native-1 serves echo@0");
        List<Map<String, Object>> nativeBatch = new ArrayList<>();
        for (int i = 0; i < NATIVE; i++) {
            nativeBatch.add(Map.of("functionBlockName", TYPE, "functionBlockVersion", "0", "type", "EXECUTE",
                    "payload", Map.of("n", 2000 + i)));
        }
        Api.Response created = api.post("/blackboard/jobs", nativeBatch);
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        Set<String> nativeJobs = new HashSet<>();
        created.body().forEach(job -> nativeJobs.add(job.get("id").asString()));
        assertThat(nativeJobs).hasSize(NATIVE);

        // two OJS workers, one of them enqueuing more first; both nack some jobs once
        startOjsWorker("ojs-a", "--fail-every", "7", "--work-ms", String.valueOf(WORK_MS), "--heartbeat-s", "1",
                "--idle-exit-s", "4", "--enqueue", String.valueOf(OJS_BY_EXAMPLE), "--type", TYPE);
        startOjsWorker("ojs-b", "--fail-every", "5", "--work-ms", String.valueOf(WORK_MS), "--heartbeat-s", "1",
                "--idle-exit-s", "4");

        int total = OJS_BY_API + OJS_BY_EXAMPLE + NATIVE;
        await(() -> jdbc.sql("select count(*) from job where status = 'PUSHED'").query(Long.class).single() == total,
                Duration.ofSeconds(60), "all " + total + " jobs end");
        assertThat(count("job")).isEqualTo(total);
        for (String ojs : List.of("ojs-a", "ojs-b")) {
            assertThat(workers.get(ojs).waitFor(20, TimeUnit.SECONDS)).as(ojs + " exits once idle").isTrue();
            assertThat(workers.get(ojs).exitValue()).as(ojs + "; see " + LOGS.resolve(ojs + ".log")).isZero();
            assertThat(Files.readString(LOGS.resolve(ojs + ".log")))
                    .as("every call of " + ojs + " was answered as expected")
                    .doesNotContain("answered").doesNotContain("failed");
        }
        workers.get("native-1").destroy(); // SIGTERM: a graceful stop
        assertThat(workers.get("native-1").waitFor(20, TimeUnit.SECONDS)).as("native-1 stops").isTrue();
        assertThat(workers.get("native-1").exitValue()).isZero();

        Set<String> allJobs = new HashSet<>(jdbc.sql("select id::text from job").query(String.class).list());
        ojsJobs.addAll(allJobs.stream().filter(id -> !nativeJobs.contains(id)).toList());
        assertThat(ojsJobs).hasSize(OJS_BY_API + OJS_BY_EXAMPLE);

        // what the workers say they ran: each attempt once, by one worker; each job acked once
        List<Ran> ran = ran("ojs-a", "ojs-b", "native-1");
        assertThat(ran).extracting(Ran::outcome).as("no ack or nack was refused").containsOnly("ack", "nack");
        assertThat(ran.stream().collect(Collectors.groupingBy(r -> r.jobId() + "/" + r.attempt(), Collectors.counting())))
                .as("no attempt ran twice")
                .allSatisfy((attempt, times) -> assertThat(times).as(attempt).isEqualTo(1));
        Map<String, Ran> acked = ran.stream().filter(r -> r.outcome().equals("ack"))
                .collect(Collectors.toMap(Ran::jobId, r -> r)); // throws on a job acked twice
        assertThat(acked.keySet()).as("every job acked once").isEqualTo(allJobs);

        // who ran what: native jobs only the native worker (an OJS fetch takes jobs by queue); OJS jobs all three
        assertThat(nativeJobs).allSatisfy(id -> assertThat(acked.get(id).worker()).isEqualTo("native-1"));
        Map<String, Long> ojsRunBy = ran.stream().filter(r -> ojsJobs.contains(r.jobId()))
                .collect(Collectors.groupingBy(Ran::worker, Collectors.counting()));
        assertThat(ojsRunBy).as("OJS jobs run by each worker").containsOnlyKeys("ojs-a", "ojs-b", "native-1");

        // nacked once, retried as attempt 2, succeeded; every other job in one attempt
        Set<String> nacked = ran.stream().filter(r -> r.outcome().equals("nack")).map(Ran::jobId)
                .collect(Collectors.toSet());
        assertThat(nacked).as("the OJS workers nacked some jobs").isNotEmpty();
        assertThat(ran).filteredOn(r -> r.outcome().equals("nack")).extracting(Ran::attempt).containsOnly(1);
        assertThat(ojsJobs).containsAll(nacked);
        for (String id : nacked) {
            assertThat(acked.get(id).attempt()).as(id).isEqualTo(2);
            Api.Response job = api.get("/ojs/v1/jobs/" + id);
            assertThat(job.status()).as(job.toString()).isEqualTo(200);
            assertThat(job.at("/job/state").asString()).as(job.toString()).isEqualTo("completed");
            assertThat(job.at("/job/attempt").asInt()).as(job.toString()).isEqualTo(2);
            assertThat(job.at("/job/result/by").asString()).isEqualTo(acked.get(id).worker());
            assertThat(job.at("/job/errors/0/code").asString()).as(job.toString()).isEqualTo("handler_error");
        }

        // the server's record: each attempt claimed once, one success per job, its result by its worker
        assertThat(jdbc.sql("""
                select job_id, attempt, count(*) from job_event where kind = 'CLAIMED'
                 group by 1, 2 having count(*) > 1""").query().listOfRows()).as("attempts claimed twice").isEmpty();
        List<Map<String, Object>> rows = jdbc.sql("""
                select j.id::text as id, j.outcome, j.attempt, j.result ->> 'by' as by, w.name as worker,
                       (select count(*) from job_event e where e.job_id = j.id and e.kind = 'CLAIMED') as claims,
                       (select count(*) from job_event e where e.job_id = j.id and e.kind = 'PUSHED') as pushes
                  from job j left join worker w on w.id = j.worker_id""").query().listOfRows();
        assertThat(rows).hasSize(total).allSatisfy(row -> {
            String id = (String) row.get("id");
            int attempts = nacked.contains(id) ? 2 : 1;
            assertThat(row).as(id).containsEntry("outcome", "SUCCESS").containsEntry("attempt", attempts)
                    .containsEntry("claims", (long) attempts).containsEntry("pushes", 1L)
                    .containsEntry("by", acked.get(id).worker()).containsEntry("worker", acked.get(id).worker());
        });
        assertThat(feed()).as("the result feed: each job once, a success").hasSize(total)
                .allSatisfy((id, outcomes) -> assertThat(outcomes).as(id).containsExactly("SUCCESS"));

        // the OJS workers are Blackboard workers
        JsonNode listed = api.get("/workers").body();
        Map<String, String> sdkByName = new HashMap<>();
        listed.forEach(w -> sdkByName.put(w.get("name").asString(), w.path("sdkName").asString()));
        assertThat(sdkByName).containsEntry("ojs-a", "ojs").containsEntry("ojs-b", "ojs").containsKey("native-1");
    }

    @Test
    void theOjsWorkerFollowsItsDirectiveFromTheHeartbeat() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(PYTHON), "python3 is installed (.ci/run installs it)");
        Files.createDirectories(LOGS);
        startOjsWorker("ojs-d", "--heartbeat-s", "0.2");
        await(() -> !jdbc.sql("select id from worker where name = 'ojs-d'").query(String.class).list().isEmpty(),
                Duration.ofSeconds(20), "ojs-d's first fetch makes it a worker");
        String worker = jdbc.sql("select id::text from worker where name = 'ojs-d'").query(String.class).single();
        Path log = LOGS.resolve("ojs-d.log");

        directive(worker, "QUIET");
        await(() -> read(log).contains("state running -> quiet"), Duration.ofSeconds(10), "ojs-d hears quiet");
        Api.Response enqueued = api.post("/ojs/v1/jobs", Map.of("type", TYPE, "args", List.of(Map.of("n", 7)),
                "options", Map.of("queue", QUEUE)));
        assertThat(enqueued.status()).as(enqueued.toString()).isEqualTo(201);
        String job = enqueued.at("/job/id").asString();
        Thread.sleep(1000);
        assertThat(api.get("/ojs/v1/jobs/" + job).at("/job/state").asString()).as("no job while quiet")
                .isEqualTo("available");

        directive(worker, "RUN");
        await(() -> api.get("/ojs/v1/jobs/" + job).at("/job/state").asString().equals("completed"),
                Duration.ofSeconds(10), "ojs-d runs the job once running again");
        assertThat(api.get("/ojs/v1/jobs/" + job).at("/job/result").toString())
                .isEqualTo("{\"n\":7,\"by\":\"ojs-d\"}");

        directive(worker, "TERMINATE");
        assertThat(workers.get("ojs-d").waitFor(10, TimeUnit.SECONDS)).as("ojs-d exits on terminate").isTrue();
        assertThat(workers.get("ojs-d").exitValue()).isZero();
        assertThat(read(log)).contains("state quiet -> running", "state running -> terminate")
                .doesNotContain("answered");
        assertThat(Files.readAllLines(LOGS.resolve("ojs-d.out")))
                .containsExactly("{\"job_id\": \"" + job + "\", \"attempt\": 1, \"outcome\": \"ack\"}");
    }

    private void directive(String worker, String directive) {
        Api.Response set = api.put("/workers/" + worker + "/directive", Map.of("directive", directive));
        assertThat(set.status()).as(set.toString()).isEqualTo(200);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The OJS example as worker {@code id} of the test queue, with the test-all token (OJS worker and engine). */
    private void startOjsWorker(String id, String... options) throws IOException {
        List<String> arguments = new ArrayList<>(List.of(ROOT.resolve("sdk/python/examples/ojs_worker.py").toString(),
                "--url", api.baseUrl(), "--token", Api.ALL_ROLES, "--queue", QUEUE, "--worker-id", id));
        arguments.addAll(List.of(options));
        start(id, arguments, Map.of());
    }

    private void start(String name, List<String> arguments, Map<String, String> environment) throws IOException {
        List<String> command = new ArrayList<>(List.of(PYTHON.toString()));
        command.addAll(arguments);
        ProcessBuilder builder = new ProcessBuilder(command).directory(ROOT.toFile())
                .redirectOutput(LOGS.resolve(name + ".out").toFile())
                .redirectError(LOGS.resolve(name + ".log").toFile());
        builder.environment().putAll(environment);
        builder.environment().put("PYTHONUNBUFFERED", "1");
        workers.put(name, builder.start());
    }

    /** The lines the workers printed (stdout), one per job attempt they ran. */
    private static List<Ran> ran(String... workers) throws IOException {
        List<Ran> ran = new ArrayList<>();
        for (String worker : workers) {
            for (String line : Files.readAllLines(LOGS.resolve(worker + ".out"))) {
                JsonNode json = JSON.readTree(line);
                ran.add(new Ran(worker, json.get("job_id").asString(), json.get("attempt").asInt(),
                        json.get("outcome").asString()));
            }
        }
        return ran;
    }

    /** Every job in the result feed, read from the beginning, with the outcomes it is shown with. */
    private Map<String, List<String>> feed() {
        Map<String, List<String>> outcomes = new HashMap<>();
        String after = "0-0";
        while (true) {
            Api.Response page = api.get("/blackboard/results?limit=1000&after=" + after);
            assertThat(page.status()).as(page.toString()).isEqualTo(200);
            if (page.at("/results").isEmpty()) {
                return outcomes;
            }
            page.at("/results").forEach(r -> outcomes
                    .computeIfAbsent(r.get("id").asString(), id -> new ArrayList<>()).add(r.get("outcome").asString()));
            after = page.at("/next").asString();
        }
    }

    private void await(BooleanSupplier condition, Duration within, String what) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            for (var worker : workers.entrySet()) {
                assertThat(worker.getValue().isAlive() || worker.getValue().exitValue() == 0)
                        .as(worker.getKey() + " died; see " + LOGS.resolve(worker.getKey() + ".log")).isTrue();
            }
            assertThat(System.nanoTime() - deadline).as(what + " within " + within).isNegative();
            Thread.sleep(100);
        }
    }
}
