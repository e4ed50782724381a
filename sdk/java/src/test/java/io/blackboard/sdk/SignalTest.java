package io.blackboard.sdk;

import static io.blackboard.sdk.StubServer.PUSH;
import static io.blackboard.sdk.StubServer.REGISTER;
import static io.blackboard.sdk.StubServer.UNREGISTER;
import static io.blackboard.sdk.StubServer.await;
import static io.blackboard.sdk.StubServer.job;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** SIGTERM to a worker process: the first drains and exits 0, a second skips the drain. */
@Timeout(30)
@DisabledOnOs(OS.WINDOWS)
class SignalTest {

    private StubServer stub;
    private Process process;
    private Path output;

    @BeforeEach
    void startStub() throws Exception {
        stub = new StubServer();
        stub.orphanGraceMs = 200;
        output = Files.createTempFile("signal-test", ".log");
    }

    @AfterEach
    void stop() throws Exception {
        if (process != null) {
            process.destroyForcibly();
        }
        stub.close();
        Files.deleteIfExists(output);
    }

    private void startWorker(long handlerSleepMs) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "-Djava.util.logging.config.file=" + new File("src/test/resources/logging.properties").getAbsolutePath(),
                SignalMain.class.getName(), stub.url(), String.valueOf(handlerSleepMs))
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        await("registered", () -> stub.count(REGISTER) == 1 && stub.count(StubServer.POLL) >= 1);
        stub.offer(job("j1", JobType.EXECUTE, 1, Map.of()));
        await("the job started", () -> read().contains("started j1"));
    }

    private String read() {
        try {
            return Files.readString(output);
        } catch (Exception e) {
            return "";
        }
    }

    @Test
    void sigterm_drains_the_running_job_unregisters_and_exits_zero() throws Exception {
        startWorker(500);

        process.destroy(); // SIGTERM

        assertThat(process.waitFor(10, TimeUnit.SECONDS)).as("exited").isTrue();
        assertThat(process.exitValue()).as(read()).isZero();
        assertThat(read()).contains("stopped SIGNAL");
        assertThat(stub.count(PUSH)).as("the job finished and was pushed").isEqualTo(1);
        List<StubServer.Request> all = stub.requests();
        assertThat(StubServer.matches(UNREGISTER, all.get(all.size() - 1))).isTrue();
    }

    @Test
    void a_second_sigterm_skips_the_drain() throws Exception {
        startWorker(20_000);

        process.destroy();
        await("draining", () -> stub.count(StubServer.PING) >= 1); // the ping loop goes on
        Thread.sleep(200);
        long second = System.nanoTime();
        process.destroy();

        assertThat(process.waitFor(10, TimeUnit.SECONDS)).as("exited").isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - second)).isLessThan(5_000);
        assertThat(process.exitValue()).as(read()).isZero();
        assertThat(stub.count(PUSH)).as("nothing pushed for a job given up").isZero();
        assertThat(stub.count(UNREGISTER)).isEqualTo(1);
    }
}
