package io.blackboard.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.IntegrationTest;
import io.blackboard.QueryPlan;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * Every form of the operator's search at 10,000 workers and 200,000 jobs: PostgreSQL's own plan
 * (sequential scans allowed, the statistics fresh) reads the form's index and neither table
 * whole, and the plan it settles on once the statement is prepared probes that index.
 */
class SearchPlanTest extends IntegrationTest {

    private static final int WORKERS = 10_000;
    private static final int JOBS = 200_000;

    @Autowired
    DataSource dataSource;

    @Test
    void everySearchFormIsServedByItsIndexAtTenThousandWorkers() throws Exception {
        ConsoleFleet.seed(jdbc, WORKERS, JOBS);
        UUID someJob = jdbc.sql("select id from job where correlation_id = 'wf-5000' limit 1").query(UUID.class).single();
        UUID someWorker = jdbc.sql("select id from worker where name = 'worker-04242'").query(UUID.class).single();

        Map<String, Form> forms = Map.of(
                "job by id", new Form(SearchStore.JOB_SEARCH_ID, params("id", someJob), "job_pkey"),
                "jobs by correlation id", new Form(SearchStore.JOB_SEARCH_CORRELATION,
                        params("correlationId", "wf-5000"), "job_correlation"),
                "jobs by a rare failure reason", new Form(SearchStore.JOB_SEARCH_FAILURE_REASON,
                        params("reason", "WORKER_DELETED"), "job_failed_by_reason"),
                "jobs by a common failure reason", new Form(SearchStore.JOB_SEARCH_FAILURE_REASON,
                        params("reason", "STUCK_TIMEOUT"), "job_failed_by_reason"),
                "worker by id", new Form(SearchStore.WORKER_SEARCH_ID, params("id", someWorker), "worker_pkey"),
                "workers by name prefix", new Form(SearchStore.WORKER_SEARCH_NAME,
                        params("from", "worker-0424", "to", OperatorSearch.after("worker-0424")), "worker_name_lower"),
                "workers by label", new Form(SearchStore.WORKER_SEARCH_LABEL,
                        params("labels", "{\"rack\": \"r4242\"}"), "worker_labels"));

        for (Map.Entry<String, Form> form : forms.entrySet()) {
            QueryPlan chosen = QueryPlan.analyze(dataSource, form.getValue().sql(), form.getValue().params());
            // the twenty-row function_block table may be read whole for the join: never job or worker
            assertThat(chosen.seqScans()).as(form.getKey() + "\n" + chosen).doesNotContain("job", "worker");
            assertThat(chosen.indexes()).as(form.getKey() + "\n" + chosen).contains(form.getValue().index());
            QueryPlan.of(dataSource, form.getValue().sql(), form.getValue().params()).assertProbes(form.getValue().index());
        }
        assertThat(jdbc.sql(SearchStore.WORKER_SEARCH_NAME).param("from", "worker-0424")
                .param("to", OperatorSearch.after("worker-0424")).param("limit", 100).query().listOfRows())
                .as("worker-04240 to worker-04249").hasSize(10);
    }

    private record Form(String sql, MapSqlParameterSource params, String index) {
    }

    private static MapSqlParameterSource params(Object... namesAndValues) {
        MapSqlParameterSource params = new MapSqlParameterSource("limit", 20);
        for (int i = 0; i < namesAndValues.length; i += 2) {
            params.addValue((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return params;
    }
}
