package io.blackboard.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

class OperatorMetricsTest extends IntegrationTest {

    @Autowired
    OperatorMetrics metrics;

    @Autowired
    MeterRegistry registry;

    double gauge(String name, String... tags) {
        return registry.get(name).tags(tags).gauge().value();
    }

    void job(UUID functionBlockId, Map<String, String> selector) {
        Api.Response created = api.post("/blackboard/jobs",
                Map.of("functionBlockId", functionBlockId, "type", "EXECUTE", "selector", selector));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
    }

    @Test
    void queueDepthAgeAndRoutabilityPerFunctionBlock() {
        UUID worker = registerWorker(Map.of("name", "w", "labels", Map.of("site", "a"), "concurrency", 2));
        UUID echo = registerBlocks(worker, List.of(block("echo", "1.0.0"))).getFirst();
        job(echo, Map.of());
        job(echo, Map.of());
        job(echo, Map.of());
        api.post("/blackboard/job", Map.of("workerId", worker));
        jdbc.sql("update job set created_at = now() - interval '90 seconds' where status = 'PENDING'").update();

        metrics.refresh();

        String[] echoTags = {"function_block", "echo", "version", "1.0.0"};
        assertThat(gauge("blackboard.jobs", "function_block", "echo", "version", "1.0.0", "status", "PENDING"))
                .isEqualTo(2);
        assertThat(gauge("blackboard.jobs", "function_block", "echo", "version", "1.0.0", "status", "POLLED"))
                .isEqualTo(1);
        assertThat(gauge("blackboard.oldest.pending.age", echoTags)).isBetween(90.0, 150.0);
        assertThat(gauge("blackboard.function.block.online.workers", echoTags)).isEqualTo(1);
        assertThat(gauge("blackboard.function.block.unroutable", echoTags)).isZero();

        job(echo, Map.of("site", "b"));
        metrics.refresh();
        assertThat(gauge("blackboard.function.block.unroutable", echoTags)).isEqualTo(1);
    }

    @Test
    void workersByStateAndDeafWorkers() {
        UUID online = registerWorker("online");
        UUID gone = registerWorker("gone");
        api.post("/workers/" + gone + "/unregister", null);
        UUID echo = registerBlocks(online, List.of(block("echo", "1.0.0"))).getFirst();
        job(echo, Map.of());
        jdbc.sql("update worker set registered_at = now() - interval '5 minutes', "
                + "state_changed_at = now() - interval '5 minutes' where id = :id").param("id", online).update();

        metrics.refresh();

        assertThat(gauge("blackboard.workers", "state", "ONLINE")).isEqualTo(1);
        assertThat(gauge("blackboard.workers", "state", "OFFLINE")).isEqualTo(1);
        assertThat(gauge("blackboard.workers", "state", "UNREACHABLE")).isZero();
        assertThat(gauge("blackboard.workers.deaf")).isEqualTo(1);
    }

    @Test
    void theGaugesAreInThePrometheusScrape() {
        UUID worker = registerWorker("w");
        registerBlocks(worker, List.of(block("echo", "1.0.0")));
        metrics.refresh();

        String scrape = api.getText("/actuator/prometheus").raw();

        assertThat(scrape)
                .contains("blackboard_workers{application=\"blackboard\",state=\"ONLINE\"}")
                .contains("blackboard_workers_deaf")
                .contains("blackboard_jobs{application=\"blackboard\",function_block=\"echo\",status=\"PENDING\","
                        + "version=\"1.0.0\"}")
                .contains("blackboard_oldest_pending_age_seconds{")
                .contains("blackboard_function_block_unroutable{")
                .contains("blackboard_function_block_online_workers{");
    }
}
