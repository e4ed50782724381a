package io.blackboard.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.blackboard.Api;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The dashboard's history charts in a headless Chromium ({@link BrowserTest}): drawn
 * against a seeded database, the points each chart holds are the database's numbers (jobs per
 * minute from the job table, claim latency from the audit trail, depth and workers as counted),
 * the range switch refetches and lands in the URL, and the fetch carries the operator token.
 * Leaves a screenshot in {@code target/console-history.png}.
 */
class HistoryBrowserTest extends BrowserTest {

    @Autowired
    HistoryRollup rollup;

    /** Where the seeded minutes end: jobs created since, by the API, are in minutes not rolled up. */
    java.time.OffsetDateTime seededBefore;

    @Test
    void drawsTheDatabasesHistoryAndSwitchesRangeWithTheToken() throws IOException {
        jdbc.sql("truncate history_minute cascade").update();
        seed();
        rollup.runOnce();

        browser.get("http://localhost:" + port + "/");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        wait.until(driver -> text("history-state").contains("401"));
        WebElement token = browser.findElement(By.id("token"));
        token.clear();
        token.sendKeys(TOKEN);
        browser.findElement(By.id("save-token")).click();
        wait.until(driver -> js("return window.blackboardHistory.data && window.blackboardHistory.data.range") != null);
        wait.until(driver -> js("return window.blackboardHistory.charts.workers ? 1 : null") != null);

        Map<Long, Long> created = points("jobs", 1);
        Map<Long, Long> createdInDatabase = perMinute("select date_trunc('minute', created_at) as m, count(*) "
                + "from job where created_at < :before group by 1");
        assertThat(created).as("jobs created per minute, as drawn").containsAllEntriesOf(createdInDatabase)
                .hasSizeGreaterThanOrEqualTo(40);
        assertThat(points("jobs", 3)).as("failed per minute").containsAllEntriesOf(perMinute(
                "select date_trunc('minute', pushed_at) as m, count(*) from job where outcome = 'FAILURE' "
                        + "and pushed_at < :before group by 1"));
        assertClaimLatencyMatchesTheAuditTrail();
        assertThat(lastPoint("workers", 1)).as("ONLINE").isEqualTo(1L);
        assertThat(lastPoint("workers", 2)).as("UNREACHABLE").isEqualTo(1L);
        assertThat(js("return window.blackboardHistory.charts.depth.series[1].label")).isEqualTo("a@1.0.0 PENDING");
        assertThat(lastPoint("depth", 1)).as("a PENDING").isEqualTo(2L);
        assertThat(lastPoint("depth", 2)).as("a POLLED").isEqualTo(1L);
        assertThat(browser.findElements(By.cssSelector("#history canvas"))).hasSize(4);

        wait.until(driver -> text("status").contains("live") && text("blocks").contains("a"));
        Files.createDirectories(Path.of("target"));
        ((JavascriptExecutor) browser).executeScript("document.getElementById('history').scrollIntoView()");
        Files.copy(((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath(),
                Path.of("target/console-history.png"), StandardCopyOption.REPLACE_EXISTING);

        // the range switch: a new fetch, with the token, and the range in the URL
        js("window.historyFetches = []; const fetch0 = window.fetch; window.fetch = (url, init) => "
                + "{ window.historyFetches.push({ url: String(url), auth: init.headers.Authorization }); "
                + "return fetch0(url, init); }; return 1");
        browser.findElement(By.cssSelector("#history-range button[data-range='24h']")).click();
        wait.until(driver -> Long.valueOf(900).equals(js("return window.blackboardHistory.data.bucketSeconds")));
        assertThat(browser.getCurrentUrl()).endsWith("/?range=24h");
        assertThat(js("return window.historyFetches.filter(f => f.url.includes('operator/history?range=24h'))"
                + ".map(f => f.auth)")).isEqualTo(List.of("Bearer " + TOKEN));
        assertThat(js("return window.blackboardHistory.charts.jobs.data[0].length")).isEqualTo(96L);
        long total = points("jobs", 1).values().stream().mapToLong(Long::longValue).sum();
        assertThat(total).as("every job created, in quarter hours").isEqualTo(createdInDatabase.values().stream()
                .mapToLong(Long::longValue).sum());

        // a pasted link: the range from the query, the hash left to the page's routes
        browser.get("http://localhost:" + port + "/?range=7d#/jobs/" + UUID.randomUUID());
        wait.until(driver -> Long.valueOf(7200).equals(js("return window.blackboardHistory.data "
                + "&& window.blackboardHistory.data.bucketSeconds")));
        assertThat(browser.findElement(By.cssSelector("#history-range button[data-range='7d']"))
                .getAttribute("aria-pressed")).isEqualTo("true");
        assertThat(js("return window.blackboardHistory.charts.jobs.data[0].length")).isEqualTo(84L);
        assertThat(browser.getCurrentUrl()).contains("#/jobs/");
    }

    /** Each minute's claim p50 as drawn equals percentile_cont over that minute's claims in the audit trail. */
    private void assertClaimLatencyMatchesTheAuditTrail() {
        Map<Long, Double> drawn = new HashMap<>();
        List<?> x = (List<?>) js("return window.blackboardHistory.charts.latency.data[0]");
        List<?> p50 = (List<?>) js("return window.blackboardHistory.charts.latency.data[1]");
        for (int i = 0; i < x.size(); i++) {
            if (p50.get(i) != null) {
                drawn.put(((Number) x.get(i)).longValue(), ((Number) p50.get(i)).doubleValue());
            }
        }
        List<Map<String, Object>> trail = jdbc.sql("""
                select extract(epoch from date_trunc('minute', c.at))::bigint as m,
                       percentile_cont(0.5) within group (order by extract(epoch from c.at - r.at) * 1000) as p50
                  from job_event c join job_event r on r.job_id = c.job_id and r.kind = 'CREATED'
                 where c.kind = 'CLAIMED' and c.at < :before
                 group by 1""").param("before", seededBefore).query().listOfRows();
        assertThat(trail).hasSizeGreaterThanOrEqualTo(40);
        for (Map<String, Object> minute : trail) {
            long m = ((Number) minute.get("m")).longValue();
            assertThat(drawn).containsKey(m);
            assertThat(drawn.get(m)).as("p50 at " + m).isCloseTo(((Number) minute.get("p50")).doubleValue(),
                    within(0.01));
        }
    }

    /**
     * Forty-one minutes of work, two to forty-two minutes ago: 1 to 6 jobs a minute on blocks a
     * and b, each claimed 1 to 5 s after its creation and pushed 2 to 5 s later, one in six a
     * FAILURE; now, two jobs of a PENDING and one POLLED; one worker ONLINE, one UNREACHABLE.
     */
    private void seed() {
        seededBefore = jdbc.sql("select date_trunc('minute', now()) - interval '1 minute'")
                .query(java.time.OffsetDateTime.class).single();
        UUID worker = registerWorker("w-online");
        List<UUID> blocks = registerBlocks(worker, List.of(block("a", "1.0.0"), block("b", "1.0.0")));
        UUID other = registerWorker("w-unreachable");
        jdbc.sql("update worker set state = 'UNREACHABLE' where id = :id").param("id", other).update();
        jdbc.sql("""
                insert into job (id, function_block_id, type, status, attempt, worker_id, created_at, polled_at,
                                 pushed_at, outcome, failure_reason, push_xid, push_seq)
                select gen_random_uuid(), case when n % 3 = 0 then cast(:b as uuid) else cast(:a as uuid) end,
                       'EXECUTE', 'PUSHED', 1, cast(:worker as uuid), t.created, t.claimed, t.pushed,
                       case when n % 6 = 0 then 'FAILURE' else 'SUCCESS' end,
                       case when n % 6 = 0 then 'WORKER_REPORTED' end, pg_current_xact_id(), k * 10 + n
                  from generate_series(2, 42) k, generate_series(1, k % 6 + 1) n,
                       lateral (select date_trunc('minute', now()) - k * interval '1 minute' + n * interval '5 seconds'
                                       as created) c,
                       lateral (select c.created, c.created + (n % 5 + 1) * interval '1 second' as claimed,
                                       c.created + (n % 5 + 1 + n % 4 + 2) * interval '1 second' as pushed) t
                """).param("a", blocks.get(0)).param("b", blocks.get(1)).param("worker", worker).update();
        jdbc.sql("""
                insert into job_event (job_id, kind, attempt, worker_id, actor, detail, at)
                select j.id, e.kind, e.attempt, j.worker_id, 'seed', e.detail, e.at
                  from job j
                  cross join lateral (values ('CREATED', 0, null, j.created_at), ('CLAIMED', 1, null, j.polled_at),
                                             ('PUSHED', 1, j.outcome, j.pushed_at)) e (kind, attempt, detail, at)
                """).update();
        Api engine = api.as("test-engine");
        for (int i = 0; i < 3; i++) {
            assertThat(engine.post("/blackboard/jobs", Map.of("functionBlockId", blocks.get(0), "type", "EXECUTE"))
                    .status()).isEqualTo(201);
        }
        assertThat(api.post("/blackboard/job", Map.of("workerId", worker, "limit", 1)).body()).hasSize(1);
    }

    /** A chart's series as bucket start (epoch seconds) to value, where it has one. */
    private Map<Long, Long> points(String chart, int series) {
        List<?> x = (List<?>) js("return window.blackboardHistory.charts." + chart + ".data[0]");
        List<?> y = (List<?>) js("return window.blackboardHistory.charts." + chart + ".data[" + series + "]");
        Map<Long, Long> points = new HashMap<>();
        for (int i = 0; i < x.size(); i++) {
            if (y.get(i) != null && ((Number) y.get(i)).longValue() != 0) {
                points.put(((Number) x.get(i)).longValue(), ((Number) y.get(i)).longValue());
            }
        }
        return points;
    }

    /** The last value a chart's series has. */
    private Object lastPoint(String chart, int series) {
        return js("const d = window.blackboardHistory.charts." + chart + ".data[" + series + "]; "
                + "return d.filter(v => v !== null).pop()");
    }

    private Map<Long, Long> perMinute(String sql) {
        Map<Long, Long> counts = new HashMap<>();
        jdbc.sql(sql).param("before", seededBefore).query((rs, n) -> counts.put(rs.getObject(1, java.time.OffsetDateTime.class).toEpochSecond(),
                rs.getLong(2))).list();
        return counts;
    }

    private Object js(String script) {
        return ((JavascriptExecutor) browser).executeScript(script);
    }

    private String text(String id) {
        return browser.findElement(By.id(id)).getText();
    }
}
