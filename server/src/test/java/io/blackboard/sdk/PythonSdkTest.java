package io.blackboard.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Python SDK's own unit tests (sdk/python/tests, unittest, no server), run by the build so
 * that the README's one test command covers them and Surefire counts each: every Python test is
 * a JUnit test of its own, passed, failed (with its traceback) or skipped as Python said.
 */
class PythonSdkTest {

    private static final Path SDK = Path.of("..", "sdk", "python").toAbsolutePath().normalize();

    /** Runs the suite once with a result class that writes one JSON line per test. */
    private static final String RUNNER = """
            import json, sys, unittest
            out = open(sys.argv[1], "w", encoding="utf-8")
            def emit(test, outcome, detail=None):
                out.write(json.dumps({"id": test.id(), "outcome": outcome, "detail": detail}) + "\\n")
                out.flush()
            class Result(unittest.TestResult):
                def addSuccess(self, test): emit(test, "passed")
                def addFailure(self, test, err): emit(test, "failed", self._exc_info_to_string(err, test))
                def addError(self, test, err): emit(test, "failed", self._exc_info_to_string(err, test))
                def addSkip(self, test, reason): emit(test, "skipped", reason)
                def addExpectedFailure(self, test, err): emit(test, "passed")
                def addUnexpectedSuccess(self, test): emit(test, "failed", "unexpected success")
                def addSubTest(self, test, subtest, err):
                    if err is not None: emit(subtest, "failed", self._exc_info_to_string(err, subtest))
            suite = unittest.defaultTestLoader.discover("tests", top_level_dir="tests")
            suite.run(Result())
            """;

    @TestFactory
    Stream<DynamicTest> theSdksUnitTestsPass() throws IOException, InterruptedException {
        Path python = Path.of("/usr/bin/python3");
        Assumptions.assumeTrue(Files.isExecutable(python), "python3 is installed (.ci/run installs it)");
        Path results = Files.createTempFile("python-sdk-tests", ".jsonl");
        Path log = Path.of("target", "python-sdk-tests.log").toAbsolutePath();
        Process process = new ProcessBuilder(python.toString(), "-c", RUNNER, results.toString())
                .directory(SDK.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertThat(process.waitFor(10, TimeUnit.MINUTES)).as("the Python tests end; see " + log).isTrue();
        assertThat(process.exitValue()).as("the Python runner; see " + log).isZero();
        JsonMapper json = JsonMapper.builder().build();
        List<DynamicTest> tests = new ArrayList<>();
        for (String line : Files.readAllLines(results)) {
            JsonNode result = json.readTree(line);
            String outcome = result.at("/outcome").asString();
            String detail = result.at("/detail").isNull() ? "" : result.at("/detail").asString();
            tests.add(DynamicTest.dynamicTest(result.at("/id").asString(), () -> {
                switch (outcome) {
                    case "passed" -> { }
                    case "skipped" -> throw new TestAbortedException(detail);
                    default -> throw new AssertionFailedError(detail);
                }
            }));
        }
        Files.delete(results);
        assertThat(tests).as("Python tests found in " + SDK).isNotEmpty();
        return tests.stream();
    }
}
