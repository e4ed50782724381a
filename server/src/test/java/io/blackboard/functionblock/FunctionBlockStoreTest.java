package io.blackboard.functionblock;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.IntegrationTest;
import io.blackboard.QueryPlan;
import io.blackboard.TestRows;
import io.blackboard.platform.sql.SqlArrays;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The function block statements against the real database: a block is inserted once and keeps
 * its first contract, a deleted worker cannot register, a worker's set is replaced whole, and
 * the registration and catalog read their indexes.
 */
class FunctionBlockStoreTest extends IntegrationTest {

    private static final String OBJECT = "{\"type\": \"object\"}";

    @Autowired
    FunctionBlockStore store;

    @Autowired
    DataSource dataSource;

    @Test
    void aSecondInsertOfTheSameNameAndVersionInsertsNothingAndKeepsTheFirstContract() {
        FunctionBlockSpec first = new FunctionBlockSpec("echo", "1", null, null, true, false, "first", null, null);
        UUID id = UUID.randomUUID();
        assertThat(store.insert(id, first, OBJECT, null, null)).hasValue(id);
        String inserted = TestRows.row(jdbc, "function_block", id);

        FunctionBlockSpec second = new FunctionBlockSpec("echo", "1", null, null, false, true, "second", null, null);
        assertThat(store.insert(UUID.randomUUID(), second, null, OBJECT, "{\"maxAttempts\": 2}")).isEmpty();
        assertThat(TestRows.row(jdbc, "function_block", id)).isEqualTo(inserted);
        assertThat(count("function_block")).isEqualTo(1);
        assertThat(store.compare(first, OBJECT, null, null)).isEqualTo(new FunctionBlockStore.Comparison(id, true));
        assertThat(store.compare(second, null, OBJECT, null)).isEqualTo(new FunctionBlockStore.Comparison(id, false));
    }

    @Test
    void aDeletedOrUnknownWorkerCannotBeLockedForARegistration() {
        UUID worker = registerWorker("w");
        assertThat(store.lockWorker(worker)).isTrue();

        api.delete("/workers/" + worker);

        assertThat(store.lockWorker(worker)).isFalse();
        assertThat(store.lockWorker(UUID.randomUUID())).isFalse();
    }

    @Test
    void replacingAWorkersSetAgainChangesNothingAndDropsWhatItNoLongerNames() {
        UUID worker = registerWorker("w");
        List<UUID> blocks = registerBlocks(worker, List.of(block("a", "1"), block("b", "1")));

        store.replaceWorkerSet(worker, blocks);
        assertThat(servedBy(worker)).containsExactlyElementsOf(blocks);

        store.replaceWorkerSet(worker, List.of(blocks.getLast()));
        assertThat(servedBy(worker)).containsExactly(blocks.getLast());

        store.replaceWorkerSet(worker, List.of());
        assertThat(servedBy(worker)).isEmpty();
        assertThat(count("function_block")).as("blocks are never deleted").isEqualTo(2);
    }

    /** A registration finds an existing block by name and version, and a worker's blocks by worker. */
    @Test
    void aRegistrationFindsBlocksAndAWorkersSetByIndex() throws SQLException {
        UUID worker = workerWithJobs();
        MapSqlParameterSource spec = new MapSqlParameterSource("name", "echo").addValue("version", "1")
                .addValue("params", null).addValue("result", null).addValue("pure", false)
                .addValue("idempotent", false).addValue("retryPolicy", null)
                .addValue("executionTimeoutMs", null);
        MapSqlParameterSource set = new MapSqlParameterSource("workerId", worker)
                .addValue("ids", SqlArrays.uuids(List.of(UUID.randomUUID())));

        QueryPlan.of(dataSource, FunctionBlockStore.FUNCTION_BLOCK_COMPARE, spec)
                .assertProbes("function_block_name_version");
        QueryPlan.of(dataSource, FunctionBlockStore.WORKER_FUNCTION_BLOCK_PRUNE, set)
                .assertProbes("worker_function_block_pkey");
        QueryPlan.of(dataSource, FunctionBlockStore.FUNCTION_BLOCK_BY_WORKER, set)
                .assertProbes("worker_function_block_pkey");
    }

    /**
     * The catalog's routing check looks at the head of each block's queue, in claim order, and its
     * count of held jobs reads the POLLED jobs alone, on the deadline index.
     */
    @Test
    void theCatalogReadsTheHeadOfEachQueueFromTheClaimIndex() throws SQLException {
        workerWithJobs();

        QueryPlan catalog = QueryPlan.of(dataSource, FunctionBlockStore.FUNCTION_BLOCK_CATALOG,
                new MapSqlParameterSource("window", FunctionBlockStore.ROUTING_WINDOW));
        catalog.assertProbes("job_claim");
        catalog.assertReads("job_deadline");
    }

    /** A worker serving echo@1, among many blocks, with jobs of echo in every state. */
    private UUID workerWithJobs() {
        UUID worker = registerWorker("w");
        UUID echo = registerBlocks(worker, List.of(block("echo", "1"))).getFirst();
        jdbc.sql("insert into function_block (id, name, version) select gen_random_uuid(), 'filler', g::text"
                + " from generate_series(1, 500) g").update();
        jdbc.sql("analyze function_block").update();
        TestRows.jobsInEveryState(jdbc, echo, 1000);
        return worker;
    }

    private List<UUID> servedBy(UUID worker) {
        return store.findByWorker(worker).stream().map(FunctionBlockView::id).toList();
    }
}
