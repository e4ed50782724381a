package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

@TestPropertySource(properties = "blackboard.job.max-parked-polls=3")
class ParkedPollBoundTest extends BlackboardTest {

    @Autowired
    PollWaiters waiters;

    @Test
    void pastTheBoundAPollIsTold429WithRetryAfterAndPollsWithoutWaitStillWork() {
        workerServingEcho(Map.of());
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 3; i++) {
                UUID id = worker("w" + i, Map.of(), List.of(block("echo", "1.0.0")));
                pool.submit(() -> api.post("/blackboard/job", Map.of("workerId", id, "waitMs", 20_000)));
            }
            LongPollTest.awaitTrue(() -> waiters.parked() == 3, "3 parked polls");

            Api.Response refused = api.post("/blackboard/job", Map.of("workerId", worker, "waitMs", 1000));

            assertProblem(refused, 429, "parked long polls");
            assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(poll(worker, 1).status()).isEqualTo(200);
            waiters.stop(); // answer the parked polls now
            waiters.start();
        }
        assertThat(waiters.parked()).isZero();
    }
}
