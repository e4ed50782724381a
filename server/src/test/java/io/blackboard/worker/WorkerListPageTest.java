package io.blackboard.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import io.blackboard.QueryPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/** GET /workers and /workers/online page in registration order, the next page named by a Link header. */
class WorkerListPageTest extends IntegrationTest {

    @Autowired
    DataSource dataSource;

    @Test
    void pagesFollowedByTheirLinkListEveryWorkerOnceInRegistrationOrder() {
        List<UUID> registered = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            registered.add(registerWorker("w" + i));
        }

        List<UUID> listed = new ArrayList<>();
        String path = "/workers?limit=2";
        int pages = 0;
        while (path != null) {
            Api.Response page = api.get(path);
            assertThat(page.status()).as(page.toString()).isEqualTo(200);
            page.body().valueStream().forEach(w -> listed.add(UUID.fromString(w.get("id").asString())));
            path = page.headers().firstValue("Link").map(WorkerListPageTest::pathOf).orElse(null);
            pages++;
        }
        assertThat(listed).containsExactlyElementsOf(registered);
        assertThat(pages).isEqualTo(3);

        Api.Response online = api.get("/workers/online?limit=4");
        assertThat(online.body().size()).isEqualTo(4);
        assertThat(api.get(pathOf(online.headers().firstValue("Link").orElseThrow())).body().size()).isEqualTo(1);
        assertThat(api.get("/workers").headers().firstValue("Link")).as("one page: no link").isEmpty();
        assertProblem(api.get("/workers?after=nonsense"), 400, "cursor");
        assertProblem(api.get("/workers?limit=0"), 400, "limit");
    }

    @Test
    void aPageIsARangeOfTheRegistrationOrderIndex() throws Exception {
        registerWorker("w");
        QueryPlan.of(dataSource, WorkerDirectoryStore.WORKER_LIST, new MapSqlParameterSource("includeDeleted", false)
                .addValue("state", null).addValue("afterRegisteredAt", java.time.OffsetDateTime.now())
                .addValue("afterId", UUID.randomUUID()).addValue("limit", 100)).assertReads("worker_registered");
    }

    /** The path and query of a Link header's URL. */
    private static String pathOf(String link) {
        String url = link.substring(1, link.indexOf('>'));
        return url.substring(url.indexOf('/', url.indexOf("//") + 2));
    }
}
