package io.blackboard.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** A worker that pings but does not poll while work it could take waits is flagged deaf. */
class DeafWorkerTest extends IntegrationTest {

    @Autowired
    WorkerDirectory workers;

    UUID worker;
    UUID echo;

    @BeforeEach
    void workerServingEcho() {
        worker = registerWorker(Map.of("name", "w", "labels", Map.of("site", "a"), "concurrency", 1));
        echo = registerBlocks(worker, List.of(block("echo", "1.0.0"))).getFirst();
    }

    void pendingJob(Map<String, String> selector) {
        Api.Response created = api.post("/blackboard/jobs",
                Map.of("functionBlockId", echo, "type", "EXECUTE", "selector", selector));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
    }

    /** As if the worker registered (and last polled, if ever) two minutes ago, and pinged since. */
    void silentForTwoMinutes() {
        jdbc.sql("""
                update worker set registered_at = now() - interval '2 minutes',
                                  state_changed_at = now() - interval '2 minutes',
                                  last_polled_at = case when last_polled_at is null then null
                                                        else now() - interval '2 minutes' end
                 where id = :id
                """).param("id", worker).update();
        api.post("/workers/" + worker + "/ping", null);
    }

    boolean deaf() {
        boolean one = api.get("/workers/" + worker).at("/deaf").asBoolean();
        boolean listed = api.get("/workers").body().valueStream()
                .filter(w -> w.get("id").asString().equals(worker.toString()))
                .findFirst().orElseThrow().get("deaf").asBoolean();
        assertThat(listed).as("GET /workers and GET /workers/{id} agree").isEqualTo(one);
        return one;
    }

    void poll() {
        assertThat(api.post("/blackboard/job", Map.of("workerId", worker)).status()).isEqualTo(200);
    }

    @Test
    void aWorkerThatPingsButNeverPollsWhileJobsWaitIsDeaf() {
        pendingJob(Map.of());
        assertThat(deaf()).as("not before the threshold").isFalse();

        silentForTwoMinutes();

        assertThat(deaf()).isTrue();
        assertThat(workers.census().deaf()).isEqualTo(1);
        assertThat(workers.census().byState()).containsEntry(WorkerState.ONLINE, 1L);
    }

    @Test
    void aPollClearsTheFlag() {
        jdbc.sql("update worker set concurrency = 5 where id = :id").param("id", worker).update();
        pendingJob(Map.of("site", "a"));
        pendingJob(Map.of("site", "a"));
        silentForTwoMinutes();
        assertThat(deaf()).isTrue();

        poll();

        assertThat(deaf()).as("it polls again, one job still waits").isFalse();
    }

    @Test
    void aSilentWorkerWithNothingItCouldTakeIsNotDeaf() {
        silentForTwoMinutes();
        assertThat(deaf()).as("nothing PENDING").isFalse();

        pendingJob(Map.of("site", "b"));
        assertThat(deaf()).as("only jobs for another site").isFalse();
    }

    @Test
    void aWorkerAtItsConcurrencyOrToldToBeQuietIsNotDeaf() {
        pendingJob(Map.of());
        pendingJob(Map.of());
        poll();
        silentForTwoMinutes();
        assertThat(deaf()).as("holds its one job: no room for more").isFalse();

        UUID idle = registerWorker(Map.of("name", "idle"));
        registerBlocks(idle, List.of(block("echo", "1.0.0")));
        api.put("/workers/" + idle + "/directive", Map.of("directive", "QUIET"));
        jdbc.sql("update worker set registered_at = now() - interval '2 minutes', "
                + "state_changed_at = now() - interval '2 minutes' where id = :id").param("id", idle).update();
        assertThat(api.get("/workers/" + idle).at("/deaf").asBoolean()).isFalse();
    }
}
