package io.blackboard.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console's pages (pages.js) in a real headless Chromium against a seeded database: the job
 * page, a workflow run's jobs, the worker page with its confirmed actions, search, and links from
 * the dashboard, each at a URL that opens it directly. Leaves target/console-job.png,
 * target/console-worker.png and target/console-search.png.
 */
class ConsolePagesBrowserTest extends BrowserTest {

    UUID cisco;
    UUID juniper;
    UUID retried;
    UUID failed;
    UUID held;
    UUID pending;
    WebDriverWait wait;

    @BeforeEach
    void aWorkflowRunWithARetryAFailureAndAHeldJob() {
        wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        wait.ignoring(StaleElementReferenceException.class); // a page is redrawn whole
        cisco = registerWorker(Map.of("name", "cisco-ios-01", "hostname", "site-a-01", "concurrency", 4,
                "labels", Map.of("site", "a", "vendor", "cisco")));
        UUID backup = registerBlocks(cisco, List.of(Map.of("name", "configBackup", "version", "2.0.0",
                "idempotent", true, "description", "Backs up a device configuration"))).getFirst();
        juniper = registerWorker(Map.of("name", "juniper-02", "hostname", "site-b-07", "labels", Map.of("site", "b")));

        retried = job(backup, Map.of("host", "r1"), Map.of("maxAttempts", 2, "initialIntervalMs", 0));
        push(claimOne(), "FAILURE", Map.of("error", Map.of("code", "TIMEOUT", "message", "ssh timed out")));
        push(claimOne(), "SUCCESS", Map.of("result", Map.of("lines", 120)));
        failed = job(backup, Map.of("host", "r2"), null);
        push(claimOne(), "FAILURE", Map.of("error", Map.of("message", "device refused the SSH session")));
        held = job(backup, Map.of("host", "r3"), null);
        claimOne();
        pending = job(backup, Map.of("host", "r4"), null);
        api.post("/blackboard/job/progress", Map.of("jobId", held, "workerId", cisco, "attempt", 1,
                "percent", 40, "message", "copying config"));
    }

    @Test
    void aPastedJobUrlOpensTheJobWithPayloadResultRetriesAndTimeline() throws IOException {
        open("/#/jobs/" + retried);

        String page = pageText("Job " + retried);
        assertThat(page).contains("configBackup@2.0.0", "idempotent", "cisco-ios-01", "wf-7", "2 of 2",
                "\"host\": \"r1\"", "\"lines\": 120", "ssh timed out", "SUCCESS");
        assertThat(kinds()).containsExactly("CREATED", "CLAIMED", "RETRYING", "DUE", "CLAIMED", "PUSHED");
        assertThat(browser.findElement(By.cssSelector("#job-errors tbody")).getText()).contains("1", "ssh timed out");
        assertHeaderLinksOut();
        screenshot("console-job.png");

        click(By.linkText("cisco-ios-01"));
        pageText("Worker cisco-ios-01");
        browser.navigate().back();
        pageText("Job " + retried);

        click(By.linkText("wf-7"));
        pageText("Jobs of correlation id wf-7");
        assertThat(browser.getCurrentUrl()).endsWith("#/jobs?correlationId=wf-7");
        assertThat(rowIds("correlation-jobs")).containsExactly(retried.toString(), failed.toString(),
                held.toString(), pending.toString());
        assertThat(browser.findElement(By.id("correlation-jobs")).getText())
                .contains("configBackup@2.0.0", "WORKER_REPORTED", "POLLED", "PENDING");

        click(By.cssSelector("#correlation-jobs tr[data-id='" + failed + "'] a"));
        assertThat(pageText("Job " + failed)).contains("FAILURE", "WORKER_REPORTED", "device refused the SSH session",
                "1 of 1");
        assertThat(kinds()).containsExactly("CREATED", "CLAIMED", "PUSHED");
    }

    @Test
    void theDashboardLinksEveryJobAndWorkerToItsPage() {
        open("/");
        wait.until(d -> !d.findElements(By.cssSelector("#failures a[href='#/jobs/" + failed + "']")).isEmpty());
        click(By.cssSelector("#failures a[href='#/jobs/" + failed + "']"));
        assertThat(pageText("Job " + failed)).contains("WORKER_REPORTED");
        assertThat(browser.findElement(By.id("dashboard")).isDisplayed()).isFalse();

        browser.navigate().back();
        wait.until(d -> d.findElement(By.id("dashboard")).isDisplayed());
        click(By.cssSelector("#running a[href='#/jobs/" + held + "']"));
        assertThat(pageText("Job " + held)).contains("40% copying config", "POLLED");
        browser.navigate().back();
        wait.until(d -> d.findElement(By.id("dashboard")).isDisplayed());
        click(By.cssSelector("#workers a[href='#/workers/" + juniper + "']"));
        pageText("Worker juniper-02");
    }

    @Test
    void theWorkerPageShowsHistoryBlocksAndJobsAndItsActionsNeedConfirmationAndTheToken() throws IOException {
        open("/#/workers/" + cisco);

        assertThat(pageText("Worker cisco-ios-01")).contains("site-a-01", "1 / 4");
        assertThat(browser.findElement(By.id("worker-blocks")).getText()).contains("configBackup", "2.0.0",
                "idempotent");
        assertThat(rowIds("held-jobs")).containsExactly(held.toString());
        assertThat(rowIds("recent-jobs")).contains(held.toString(), failed.toString(), retried.toString());
        assertThat(browser.findElement(By.id("worker-history")).getText()).contains("REGISTERED");
        assertHeaderLinksOut();
        screenshot("console-worker.png");

        click(By.id("directive-QUIET"));
        wait.until(ExpectedConditions.alertIsPresent()).dismiss();
        wait.until(d -> d.findElement(By.id("action-result")).getText().contains("Cancelled"));
        assertThat(directive(cisco)).isEqualTo("RUN");

        click(By.id("directive-QUIET"));
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(d -> d.findElement(By.id("worker-history")).getText().contains("DIRECTIVE"));
        assertThat(directive(cisco)).isEqualTo("QUIET");
        assertThat(browser.findElement(By.id("directive-QUIET")).isEnabled()).isFalse();

        useToken("not-a-token");
        click(By.id("directive-TERMINATE"));
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(d -> d.findElement(By.id("action-result")).getText().contains("401"));
        assertThat(browser.findElement(By.id("action-result")).getText()).contains("bearer token");
        useToken("test-engine");
        click(By.id("delete-worker"));
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(d -> d.findElement(By.id("action-result")).getText().contains("403"));
        assertThat(browser.findElement(By.id("action-result")).getText()).contains("may not DELETE");
        assertThat(directive(cisco)).isEqualTo("QUIET");
        assertThat(deleted(cisco)).isFalse();

        useToken(TOKEN);
        click(By.id("delete-worker"));
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(d -> d.findElement(By.cssSelector(".badges")).getText().contains("DELETED"));
        assertThat(deleted(cisco)).isTrue();
        assertThat(browser.findElement(By.id("delete-worker")).isEnabled()).isFalse();
        assertThat(browser.findElement(By.id("worker-history")).getText()).contains("DELETED");
    }

    @Test
    void searchFindsByEveryFormAndLinksToThePages() throws IOException {
        open("/");
        search("wf-7");
        wait.until(d -> d.getCurrentUrl().endsWith("#/search?q=wf-7"));
        pageText("Search: wf-7");
        assertThat(rowIds("search-jobs")).containsExactly(retried.toString(), failed.toString(), held.toString(),
                pending.toString());
        assertHeaderLinksOut();
        screenshot("console-search.png");
        click(By.cssSelector("#search-jobs tr[data-id='" + held + "'] a"));
        pageText("Job " + held);

        search("JUNI");
        pageText("Search: JUNI");
        assertThat(rowIds("search-workers")).containsExactly(juniper.toString());
        click(By.linkText("juniper-02"));
        pageText("Worker juniper-02");

        search("site=a");
        pageText("Search: site=a");
        assertThat(rowIds("search-workers")).containsExactly(cisco.toString());
        search("worker_reported");
        pageText("Search: worker_reported");
        assertThat(rowIds("search-jobs")).containsExactly(failed.toString());
        search(juniper.toString());
        pageText("Search: " + juniper);
        assertThat(rowIds("search-workers")).containsExactly(juniper.toString());
        search(retried.toString());
        pageText("Search: " + retried);
        assertThat(rowIds("search-jobs")).containsExactly(retried.toString());
        search("nothing-like-it");
        assertThat(pageText("Search: nothing-like-it")).contains("No job matches", "No worker matches");
    }

    // ---- the browser ----

    /** Opens the path (a console URL, as pasted) with the operator token saved in the browser. */
    /**
     * Clicks what the locator finds, found again if the page redrew it meanwhile (the dashboard
     * redraws its tables every 2.5 s, replacing the element a test just found).
     */
    private void click(By locator) {
        new WebDriverWait(browser, Duration.ofSeconds(10)).ignoring(StaleElementReferenceException.class)
                .until(driver -> {
                    driver.findElement(locator).click();
                    return true;
                });
    }

    private void open(String path) {
        browser.get("http://localhost:" + port + "/#/nowhere");
        useToken(TOKEN);
        browser.get("http://localhost:" + port + path);
    }

    private void useToken(String token) {
        ((JavascriptExecutor) browser).executeScript("localStorage.setItem('blackboard.operatorToken', arguments[0])",
                token);
    }

    private void search(String text) {
        WebElement box = browser.findElement(By.id("search"));
        box.clear();
        box.sendKeys(text, Keys.ENTER);
    }

    /** The page's text once its title reads {@code title}. */
    private String pageText(String title) {
        wait.withMessage(() -> "a page titled '" + title + "' at " + browser.getCurrentUrl() + ", showing:\n"
                + browser.findElement(By.tagName("body")).getText()).until(d -> {
            List<WebElement> titles = d.findElements(By.cssSelector("#page .page-title"));
            return !titles.isEmpty() && titles.getFirst().getText().equals(title);
        });
        return browser.findElement(By.id("page")).getText();
    }

    private List<String> kinds() {
        return browser.findElements(By.cssSelector("#timeline li")).stream().map(li -> li.getAttribute("data-kind"))
                .toList();
    }

    private List<String> rowIds(String table) {
        return browser.findElements(By.cssSelector("#" + table + " tbody tr[data-id]")).stream()
                .map(tr -> tr.getAttribute("data-id")).toList();
    }

    private void assertHeaderLinksOut() {
        WebElement header = browser.findElement(By.tagName("header"));
        assertThat(header.findElement(By.linkText("API docs")).getAttribute("href")).endsWith("/swagger-ui.html");
        assertThat(header.findElement(By.linkText("metrics")).getAttribute("href")).endsWith("/actuator/prometheus");
    }

    // ---- the database ----

    private String directive(UUID worker) {
        return jdbc.sql("select directive from worker where id = :id").param("id", worker).query(String.class).single();
    }

    private boolean deleted(UUID worker) {
        return jdbc.sql("select deleted_at is not null from worker where id = :id").param("id", worker)
                .query(Boolean.class).single();
    }

    private UUID job(UUID block, Map<String, Object> payload, Map<String, Object> retryPolicy) {
        Map<String, Object> body = retryPolicy == null
                ? Map.of("functionBlockId", block, "type", "EXECUTE", "payload", payload, "correlationId", "wf-7")
                : Map.of("functionBlockId", block, "type", "EXECUTE", "payload", payload, "correlationId", "wf-7",
                        "retryPolicy", retryPolicy);
        Api.Response created = api.post("/blackboard/jobs", body);
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return UUID.fromString(created.at("/id").asString());
    }

    /** Claims the next job for cisco-ios-01, waiting (a retry) until one is due. */
    private Api.Response claimOne() {
        Api.Response claimed = api.post("/blackboard/job", Map.of("workerId", cisco, "waitMs", 5000));
        assertThat(claimed.body()).as(claimed.toString()).hasSize(1);
        return claimed;
    }

    private void push(Api.Response claimed, String status, Map<String, Object> outcome) {
        Map<String, Object> body = new java.util.HashMap<>(outcome);
        body.putAll(Map.of("jobId", claimed.at("/0/id").asString(), "workerId", cisco,
                "attempt", claimed.at("/0/attempt").asInt(), "status", status));
        Api.Response pushed = api.post("/blackboard/job/result", body);
        assertThat(pushed.status()).as(pushed.toString()).isEqualTo(200);
    }
}
