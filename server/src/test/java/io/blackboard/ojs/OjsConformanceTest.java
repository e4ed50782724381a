package io.blackboard.ojs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.test.annotation.DirtiesContext;
import tools.jackson.databind.JsonNode;

/**
 * The public OJS conformance suite's level 0 and level 1 cases (conformance/ojs/suites), run
 * against the real server: one dynamic test per case file, then one that checks the manifest
 * claims the level that passed. Each case starts on empty tables. The sweepers run on a clock
 * here, at short intervals, because the level 1 cases wait for leases, timeouts and retries to
 * fall due. A summary line per case goes to {@code target/ojs-conformance.txt}.
 *
 * <p>Against a deployment: {@code -Dojs.url=https://host} (or {@code OJS_TEST_URL}) with
 * {@code -Dojs.token} (producer, engine role) and {@code -Dojs.workerToken} (the OJS worker
 * role; defaults to ojs.token), or {@code OJS_TEST_TOKEN} and {@code OJS_TEST_WORKER_TOKEN}. The
 * suites are found at {@code ojs.conformance.suites} / {@code OJS_CONFORMANCE_SUITES}, by default
 * {@code ../conformance/ojs/suites}. Only for a dedicated deployment: before each case every job
 * not yet ended on it is cancelled (the native bulk cancel, PENDING, POLLED then PARKED), so
 * cases do not see each other's jobs.
 *
 * <p>The context is closed after the class ({@link DirtiesContext}): its sweepers run on a clock,
 * and must not go on running behind the backs of the test classes after it, which share the
 * database and drive every sweeper themselves.
 */
@DirtiesContext
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "blackboard.scheduling.enabled=true",
        "blackboard.job.lease-check-interval=200ms",
        "blackboard.job.job-check-interval=200ms"})
class OjsConformanceTest extends IntegrationTest {

    /** Cases that test something a production server must not do, or contradict themselves. */
    static final Map<String, String> SKIPPED = Map.of(
            "L1-RTR-014", "retry-error-history-tracked asserts error types (ConnectionTimeout, ...) that its own"
                    + " nacks never send (they all send code handler_error)",
            "L1-WRK-002", "worker-quiet-signal forces the heartbeat's reply through a test-only job field"
                    + " (options.metadata.test_directive), a backdoor a production server must not honour;"
                    + " the directive is tested natively instead",
            "L1-WRK-003", "worker-graceful-shutdown forces the heartbeat's reply through a test-only job field"
                    + " (options.metadata.test_directive), a backdoor a production server must not honour;"
                    + " the directive is tested natively instead");

    private static final String TRUNCATE = "truncate job_event, job, worker_function_block, function_block, worker cascade";

    private enum Outcome { PASS, FAIL, SKIP }

    /** Each case's outcome, filled as the dynamic tests run, read by the manifest check at the end. */
    private final Map<Path, Outcome> outcomes = new LinkedHashMap<>();
    private Path report;
    private boolean external;

    @TestFactory
    Stream<DynamicTest> ojsConformance() {
        String url = setting("ojs.url", "OJS_TEST_URL");
        external = url != null;
        String token = external ? setting("ojs.token", "OJS_TEST_TOKEN") : Api.ALL_ROLES;
        String workerToken = external ? setting("ojs.workerToken", "OJS_TEST_WORKER_TOKEN") : Api.ALL_ROLES;
        OjsRunner.Target target = new OjsRunner.Target(external ? url.replaceAll("/+$", "") : "http://localhost:" + port,
                token, workerToken == null ? token : workerToken);
        OjsRunner runner = new OjsRunner(target, HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build());
        List<OjsCase> cases = OjsCase.load(suites());
        checkSkipList(cases);
        startReport(target, cases.size());
        Stream<DynamicTest> each = cases.stream().map(c -> DynamicTest.dynamicTest(c.displayName(), c.file().toUri(),
                () -> runCase(c, runner, target)));
        return Stream.concat(each, Stream.of(DynamicTest.dynamicTest("manifest conformance_level",
                () -> checkManifest(cases, runner))));
    }

    private void runCase(OjsCase c, OjsRunner runner, OjsRunner.Target target) {
        String skip = SKIPPED.get(c.testId());
        if (skip != null) {
            outcomes.put(c.file(), Outcome.SKIP);
            reportLine("SKIP", c.displayName(), skip);
            Assumptions.abort(skip);
        }
        try {
            isolate(runner, target);
            runner.run(c);
            outcomes.put(c.file(), Outcome.PASS);
            reportLine("PASS", c.displayName(), null);
        } catch (RuntimeException | Error e) {
            outcomes.put(c.file(), Outcome.FAIL);
            reportLine("FAIL", c.displayName(), e instanceof OjsRunner.OjsFailure f ? f.summary() : String.valueOf(e));
            throw e;
        }
    }

    /** The manifest claims the highest level whose cases (and every lower level's) all passed or were skipped. */
    private void checkManifest(List<OjsCase> cases, OjsRunner runner) {
        int passed = passedLevel(cases);
        OjsResponse manifest = runner.get("/ojs/manifest");
        JsonNode claimed = manifest.body() == null ? null : manifest.body().get("conformance_level");
        reportLine(passed >= 0 && claimed != null && claimed.isIntegralNumber() && claimed.asInt() == passed ? "PASS" : "FAIL",
                "manifest conformance_level", "claims " + OjsMatcher.show(claimed) + ", level passed: " + (passed < 0 ? "none" : passed));
        assertThat(manifest.status()).as("GET /ojs/manifest: %s", manifest.shown()).isEqualTo(200);
        if (passed < 0) {
            fail("no level passed entirely (see the failed cases); the manifest claims conformance_level "
                    + OjsMatcher.show(claimed));
        }
        assertThat(claimed != null && claimed.isIntegralNumber() ? claimed.asInt() : null)
                .as("conformance_level of GET /ojs/manifest (%s): every case of levels 0..%d passed or was skipped"
                        + " with a reason, and no higher level ran here", manifest.shown(), passed)
                .isEqualTo(passed);
    }

    private int passedLevel(List<OjsCase> cases) {
        int passed = -1;
        for (int level : new TreeSet<>(cases.stream().map(OjsCase::level).toList())) {
            boolean all = cases.stream().filter(c -> c.level() == level)
                    .allMatch(c -> outcomes.get(c.file()) == Outcome.PASS || outcomes.get(c.file()) == Outcome.SKIP);
            if (!all) {
                break;
            }
            passed = level;
        }
        return passed;
    }

    /** Each case on its own: empty tables here, every unfinished job cancelled on a deployment. */
    private void isolate(OjsRunner runner, OjsRunner.Target target) {
        if (external) {
            for (String status : List.of("PENDING", "POLLED", "PARKED")) {
                OjsResponse r = runner.post("/blackboard/jobs/cancel", "{\"status\":\"" + status + "\"}");
                assertThat(r.status()).as("isolation: cancelling every %s job on %s: %s", status, target.baseUrl(), r.shown())
                        .isEqualTo(200);
            }
            return;
        }
        boolean workerEvents = jdbc.sql("select to_regclass('worker_event') is not null").query(Boolean.class).single();
        String statement = workerEvents ? TRUNCATE.replace("worker cascade", "worker_event, worker cascade") : TRUNCATE;
        for (int attempt = 1; ; attempt++) {
            try {
                jdbc.sql(statement).update();
                return;
            } catch (PessimisticLockingFailureException e) {
                if (attempt == 5) {
                    throw e; // a sweeper or a request of the last case kept its locks for a second
                }
                sleep(200);
            }
        }
    }

    private static void checkSkipList(List<OjsCase> cases) {
        for (String id : SKIPPED.keySet()) {
            long matching = cases.stream().filter(c -> c.testId().equals(id)).count();
            assertThat(matching).as("the skip list names %s, which must be exactly one case of the suites", id).isEqualTo(1);
        }
    }

    private static Path suites() {
        String configured = setting("ojs.conformance.suites", "OJS_CONFORMANCE_SUITES");
        return Path.of(configured != null ? configured : "../conformance/ojs/suites");
    }

    /** A system property, else an environment variable, else null. */
    private static String setting(String property, String variable) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            value = System.getenv(variable);
        }
        return value == null || value.isBlank() ? null : value;
    }

    private void startReport(OjsRunner.Target target, int cases) {
        report = Path.of(System.getProperty("ojs.report", "target/ojs-conformance.txt"));
        write("OJS conformance, levels 0-" + OjsCase.MAX_LEVEL + ", " + cases + " cases, against " + target.baseUrl()
                + " at " + Instant.now() + "\n", StandardOpenOption.TRUNCATE_EXISTING);
    }

    private void reportLine(String outcome, String name, String reason) {
        String why = reason == null ? "" : "  -- " + reason.replace('\n', ' ');
        String line = String.format("%-4s  %s%s%n", outcome, name, why.length() > 800 ? why.substring(0, 800) + "..." : why);
        write(line, StandardOpenOption.APPEND);
    }

    private void write(String text, StandardOpenOption mode) {
        try {
            Files.createDirectories(report.toAbsolutePath().getParent());
            Files.writeString(report, text, StandardOpenOption.CREATE, StandardOpenOption.WRITE, mode);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
