package io.blackboard.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.IntegrationTest;
import io.blackboard.QueryPlan;
import io.blackboard.TestRows;
import io.blackboard.platform.security.Tokens;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The registry's reads against the real database: whether a worker is live, and the look-ups
 * every request and the sweeps make, each on its index. The writes are {@link WorkerStoreTest}'s.
 */
class WorkerDirectoryStoreTest extends IntegrationTest {

    @Autowired
    WorkerDirectoryStore store;

    @Autowired
    DataSource dataSource;

    @Test
    void aWorkerIsLiveUntilDeletedAndUnknownIfNeverRegistered() {
        UUID id = registerWorker("w");
        assertThat(store.live(id)).hasValue(true);

        api.delete("/workers/" + id);

        assertThat(store.live(id)).hasValue(false);
        assertThat(store.live(UUID.randomUUID())).isEmpty();
    }

    /** A worker's view counts its held jobs on the worker's index; a token names its worker by the token's. */
    @Test
    void aWorkerIsFoundByIdOrTokenByIndex() throws SQLException {
        UUID id = workerWithJobs();

        QueryPlan.of(dataSource, WorkerDirectoryStore.WORKER_FIND, new MapSqlParameterSource("id", id))
                .assertProbes("worker_pkey", "job_by_worker");
        QueryPlan.of(dataSource, WorkerDirectoryStore.WORKER_BY_TOKEN,
                new MapSqlParameterSource("hash", Tokens.sha256("filler-1"))).assertProbes("worker_token_hash");
    }

    /** The deafness check looks at the head of each queue the worker serves, not at every PENDING job. */
    @Test
    void theDeafnessCheckReadsTheHeadOfEachQueueFromTheClaimIndex() throws SQLException {
        UUID id = workerWithJobs();

        QueryPlan.of(dataSource, WorkerDirectoryStore.WORKER_DEAF, new MapSqlParameterSource("id", id)
                        .addValue("deafAfterMs", 60_000).addValue("window", WorkerDirectoryStore.DEAF_WINDOW))
                .assertProbes("job_claim", "worker_function_block_pkey");
    }

    @Test
    void theCountOfLiveWorkersByStateReadsTheStateIndex() throws SQLException {
        workerWithJobs();

        QueryPlan.of(dataSource, WorkerDirectoryStore.WORKER_COUNT_BY_STATE, new MapSqlParameterSource())
                .assertReads("worker_state");
    }

    /** A worker serving a block, among many workers, with jobs of the block in every state. */
    private UUID workerWithJobs() {
        TestRows.workers(jdbc, 500);
        UUID id = registerWorker("w");
        TestRows.jobsInEveryState(jdbc, registerBlocks(id, List.of(block("echo", "1"))).getFirst(), 1000);
        return id;
    }
}
