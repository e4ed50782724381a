package io.blackboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Base of the integration tests: the real server on a random port, against real PostgreSQL,
 * with every table emptied before each test. Not transactional: claims need real,
 * separate connections.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(TestDatabase.class)
public abstract class IntegrationTest {

    @LocalServerPort
    protected int port;

    @Autowired
    protected JdbcClient jdbc;

    protected Api api;

    @BeforeEach
    void resetDatabase() {
        for (int attempt = 1; ; attempt++) {
            try {
                jdbc.sql("truncate job_event, job, worker_function_block, function_block, worker cascade").update();
                break;
            } catch (org.springframework.dao.PessimisticLockingFailureException e) {
                if (attempt == 3) {
                    throw e; // a request of an earlier test is still running: a test leaked work
                }
            }
        }
        api = new Api(port);
        awaitReady();
    }

    /**
     * A cached test context that another test class's context stood in for is paused and started
     * again (its lifecycle beans stopped and started): its job notification listener then
     * reconnects in the background, and the server is not ready (nor woken by notifications)
     * until it has. Each test starts on a ready server; one that never gets ready (a test's own
     * setup) starts after 20 s, and its assertions say what is wrong.
     */
    private void awaitReady() {
        long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (api.get("/actuator/health/readiness").status() != 200 && System.nanoTime() < until) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    protected UUID registerWorker(String name) {
        return registerWorker(Map.of("name", name));
    }

    protected UUID registerWorker(Map<String, Object> body) {
        Api.Response response = api.post("/workers/register", body);
        assertThat(response.status()).as(response.toString()).isEqualTo(201);
        return UUID.fromString(response.at("/id").asString());
    }

    protected Map<String, Object> block(String name, String version) {
        return Map.of("name", name, "version", version);
    }

    /** Registers the worker's function blocks and returns their ids in the order given. */
    protected List<UUID> registerBlocks(UUID workerId, List<Map<String, Object>> blocks) {
        Api.Response response = api.post("/function-blocks/register",
                Map.of("workerId", workerId, "functionBlocks", blocks));
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return blocks.stream().map(b -> {
            for (var fb : response.body()) {
                if (fb.get("name").asString().equals(b.get("name")) && fb.get("version").asString().equals(b.get("version"))) {
                    return UUID.fromString(fb.get("id").asString());
                }
            }
            throw new AssertionError("block not returned: " + b);
        }).toList();
    }

    protected void assertProblem(Api.Response response, int status, String detailFragment) {
        assertThat(response.status()).as(response.toString()).isEqualTo(status);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.at("/detail").asString()).containsIgnoringCase(detailFragment);
        assertThat(response.raw()).doesNotContain("Exception").doesNotContain("\tat ");
    }

    protected long count(String table) {
        return jdbc.sql("select count(*) from " + table).query(Long.class).single();
    }
}
