package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The filters of GET /blackboard/jobs (issue 24): each one holds, together they all hold. */
class JobListTest extends BlackboardTest {

    @Test
    void eachFilterSelectsWhatItNames() {
        workerServingEcho(Map.of("concurrency", 10, "labels", Map.of("site", "a")));
        UUID rollback = createJob(echo, Map.of("type", "ROLLBACK", "selector", Map.of("site", "a")));
        UUID succeeded = createJob(echo, Map.of());
        UUID failed = createJob(echo, Map.of());
        UUID pending = createJob(echo, Map.of("correlationId", "wf-1"));
        assertThat(claim(worker, 3)).containsExactly(rollback, succeeded, failed);
        push(succeeded, worker, Map.of());
        push(failed, worker, Map.of("status", "FAILURE"));
        UUID v2 = registerBlocks(worker, List.of(block("echo", "1.0.0"), block("echo", "2.0.0"))).get(1);
        UUID newer = createJob(v2, Map.of());

        assertThat(list("outcome=failure")).containsExactly(failed);
        assertThat(list("failureReason=WORKER_REPORTED")).containsExactly(failed);
        assertThat(list("failureReason=STUCK_TIMEOUT")).isEmpty();
        assertThat(list("type=rollback")).containsExactly(rollback);
        assertThat(list("status=polled")).containsExactly(rollback);
        assertThat(list("functionBlockName=echo&functionBlockVersion=%5E2")).containsExactly(newer);
        assertThat(list("functionBlockName=echo&functionBlockVersion=1.0.0")).hasSize(4);
        assertThat(list("functionBlockName=nothing")).as("no block of that name: no job").isEmpty();
        assertThat(list("label=site:a")).containsExactly(rollback);
        assertThat(list("correlationId=wf-1&status=pending")).containsExactly(pending);
        OffsetDateTime newerAt = OffsetDateTime.parse(job(newer).get("createdAt").asString());
        assertThat(list("createdFrom=" + encode(newerAt))).containsExactly(newer);
        assertThat(list("createdTo=" + encode(newerAt))).as("to excludes its end").hasSize(4);
        OffsetDateTime failedAt = OffsetDateTime.parse(job(failed).get("pushedAt").asString());
        assertThat(list("pushedFrom=" + encode(failedAt))).containsExactly(failed);
        assertThat(list("pushedTo=" + encode(failedAt))).containsExactly(succeeded);
        assertThat(list("outcome=success&type=execute&functionBlockName=echo")).containsExactly(succeeded);
    }

    @Test
    void pagesFollowTheCursorWithTheFiltersKept() {
        workerServingEcho(Map.of());
        List<UUID> executes = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            executes.add(createJob(echo, Map.of()));
            createJob(echo, Map.of("type", "ACQUIRE"));
        }
        Api.Response first = api.get("/blackboard/jobs?type=execute&limit=3");
        Api.Response second = api.get("/blackboard/jobs?type=execute&limit=3&after=" + first.at("/next").asString());

        assertThat(ids(first)).containsExactlyElementsOf(executes.subList(0, 3));
        assertThat(ids(second)).containsExactlyElementsOf(executes.subList(3, 5));
        assertThat(second.at("/next").isNull()).isTrue();
    }

    @Test
    void aJobsEventsAndAWorkersJobsPageByTheLinkHeader() {
        workerServingEcho(Map.of("concurrency", 3));
        List<UUID> created = List.of(createJob(echo, Map.of()), createJob(echo, Map.of()), createJob(echo, Map.of()));
        assertThat(claim(worker, 3)).hasSize(3);
        push(created.getFirst(), worker, Map.of());

        Api.Response events = api.get("/blackboard/jobs/" + created.getFirst() + "/events?limit=2");
        assertThat(kinds(events)).containsExactly("CREATED", "CLAIMED");
        Api.Response rest = api.get(next(events));
        assertThat(kinds(rest)).containsExactly("PUSHED");
        assertThat(rest.headers().firstValue("Link")).as("the last page").isEmpty();
        // one at a time: the CREATED event (read from the job row, id 0) is a position to page on from
        List<String> oneByOne = new java.util.ArrayList<>();
        Api.Response page = api.get("/blackboard/jobs/" + created.getFirst() + "/events?limit=1");
        oneByOne.addAll(kinds(page));
        while (page.headers().firstValue("Link").isPresent()) {
            page = api.get(next(page));
            oneByOne.addAll(kinds(page));
        }
        assertThat(oneByOne).containsExactly("CREATED", "CLAIMED", "PUSHED");

        Api.Response jobs = api.get("/workers/" + worker + "/jobs?limit=2");
        Api.Response more = api.get(next(jobs));
        List<UUID> all = new java.util.ArrayList<>(jobs.body().valueStream().map(BlackboardTest::id).toList());
        all.addAll(more.body().valueStream().map(BlackboardTest::id).toList());
        assertThat(all).as("each once, most recently claimed first").containsExactlyInAnyOrderElementsOf(created);
        assertThat(more.headers().firstValue("Link")).isEmpty();
        assertProblem(api.get("/blackboard/jobs/" + created.getFirst() + "/events?after=nonsense"), 400, "cursor");
        assertProblem(api.get("/workers/" + worker + "/jobs?after=nonsense"), 400, "cursor");
    }

    /** The path and query of a page's Link rel=next. */
    private String next(Api.Response page) {
        String link = page.headers().firstValue("Link").orElseThrow(() -> new AssertionError("no Link: " + page));
        assertThat(link).endsWith(">; rel=\"next\"");
        String url = link.substring(1, link.indexOf('>'));
        return url.substring(url.indexOf("/", url.indexOf("//") + 2));
    }

    private static List<String> kinds(Api.Response events) {
        assertThat(events.status()).as(events.toString()).isEqualTo(200);
        return events.body().valueStream().map(e -> e.get("kind").asString()).toList();
    }

    @Test
    void aBadFilterIsA400ThatSaysWhy() {
        workerServingEcho(Map.of());
        assertProblem(api.get("/blackboard/jobs?outcome=done"), 400, "expected one of [SUCCESS, FAILURE, CANCELLED]");
        assertProblem(api.get("/blackboard/jobs?failureReason=LATE"), 400, "failureReason");
        assertProblem(api.get("/blackboard/jobs?type=run"), 400, "type");
        assertProblem(api.get("/blackboard/jobs?label=site"), 400, "key:value");
        assertProblem(api.get("/blackboard/jobs?functionBlockVersion=1.0.0"), 400, "goes with functionBlockName");
        assertProblem(api.get("/blackboard/jobs?functionBlockName=echo&functionBlockVersion=%5Ex"), 400,
                "functionBlockVersion");
        assertThat(api.get("/blackboard/jobs?createdFrom=yesterday").status()).isEqualTo(400);
    }

    private List<UUID> list(String query) {
        Api.Response response = api.get("/blackboard/jobs?" + query);
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return ids(response);
    }

    private static List<UUID> ids(Api.Response page) {
        return page.at("/jobs").valueStream().map(BlackboardTest::id).toList();
    }

    private static String encode(OffsetDateTime time) {
        return URLEncoder.encode(time.toString(), StandardCharsets.UTF_8);
    }
}
