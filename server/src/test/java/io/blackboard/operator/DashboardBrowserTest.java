package io.blackboard.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.platform.scheduling.Sweeper;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The dashboard in a real headless Chromium: what it renders, that it refreshes without a
 * reload, that every fetch carries the operator token. Skipped where Debian's chromium and
 * chromium-driver are not installed ({@code .ci/run} installs them). Leaves a screenshot in
 * {@code target/dashboard.png}.
 */
class DashboardBrowserTest extends BrowserTest {

    @Autowired
    List<Sweeper> sweepers;

    @Test
    void showsWorkersBlocksAndFailuresAndUpdatesLiveWithTheToken() throws IOException {
        operationsInFullSwing();
        browser.get("http://localhost:" + port + "/");
        WebElement token = browser.findElement(By.id("token"));
        token.clear();
        token.sendKeys(TOKEN);
        browser.findElement(By.id("save-token")).click();
        ((JavascriptExecutor) browser).executeScript("window.sameDocument = true");

        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("status"), "live"));
        wait.until(driver -> rows("failures").size() == 2);

        assertThat(text("workers")).contains("cisco-ios-01", "site=a", "configBackup@2.0.0", "1 / 4",
                "juniper-02", "netbox-sync", "legacy-runner", "canary-05");
        assertThat(badgeOf("workers", "juniper-02", "UNREACHABLE")).isTrue();
        assertThat(badgeOf("workers", "netbox-sync", "DEAF")).isTrue();
        assertThat(badgeOf("workers", "canary-05", "QUIET")).isTrue();
        assertThat(badgeOf("blocks", "firmwareUpgrade", "UNROUTABLE")).isTrue();
        assertThat(badgeOf("blocks", "configBackup", "ok")).isTrue();
        assertThat(text("failures")).contains("WORKER_REPORTED", "device refused the SSH session", "STUCK_TIMEOUT");
        assertThat(browser.findElement(By.id("tiles")).getText()).containsIgnoringCase("Unroutable blocks");
        screenshot("dashboard.png");

        registerWorker(Map.of("name", "edge-router-09", "hostname", "site-c-02", "labels", Map.of("site", "c")));
        wait.until(driver -> text("workers").contains("edge-router-09"));
        assertThat(((JavascriptExecutor) browser).executeScript("return window.sameDocument"))
                .as("updated in place, not reloaded").isEqualTo(true);

        browser.findElement(By.id("filter-text")).sendKeys("juniper");
        wait.until(driver -> rows("workers").size() == 1);
        assertThat(text("workers")).contains("juniper-02").doesNotContain("cisco-ios-01");
    }

    /** Workers in every state, queues with an unroutable block, and two kinds of failure. */
    private void operationsInFullSwing() {
        UUID cisco = worker("cisco-ios-01", "site-a-01", Map.of("site", "a", "vendor", "cisco"), 4,
                List.of(fb("configBackup", "2.0.0", "idempotent", "Backs up a device configuration"),
                        fb("ping", "1.0.0", "pure", "Reachability check")));
        UUID juniper = worker("juniper-02", "site-b-07", Map.of("site", "b", "vendor", "juniper"), 2,
                List.of(fb("traceroute", "1.0.0", "pure", "Path discovery")));
        UUID netbox = worker("netbox-sync", "ops-03", Map.of("site", "a"), 1,
                List.of(fb("inventorySync", "1.2.0", "idempotent", "Syncs the inventory")));
        UUID legacy = worker("legacy-runner", "old-01", Map.of("site", "a"), 1,
                List.of(fb("firmwareUpgrade", "3.1.0", null, "Upgrades device firmware")));
        UUID canary = worker("canary-05", "site-a-05", Map.of("site", "a", "canary", "true"), 1,
                List.of(fb("ping", "1.0.0", "pure", "Reachability check")));
        api.put("/workers/" + canary + "/directive", Map.of("directive", "QUIET"));

        UUID backup = blockId("configBackup");
        for (int i = 0; i < 6; i++) {
            job(backup, Map.of("host", "r" + i));
        }
        claim(cisco, 3);
        UUID reported = heldBy(cisco).getFirst();
        api.post("/blackboard/job/result", Map.of("jobId", reported, "workerId", cisco, "status", "FAILURE",
                "error", Map.of("message", "device refused the SSH session")));
        UUID stuck = heldBy(cisco).getFirst();
        jdbc.sql("update job set deadline = now() - interval '1 second' where id = :id").param("id", stuck).update();
        sweeper("stuck-jobs").runOnce();
        job(blockId("traceroute"), Map.of("target", "10.1.2.3"));
        job(blockId("inventorySync"), Map.of("source", "netbox"));
        job(blockId("firmwareUpgrade"), Map.of("image", "17.9.4"));
        api.post("/workers/" + legacy + "/unregister", null);
        jdbc.sql("update job set created_at = now() - interval '4 minutes' where status = 'PENDING'").update();
        jdbc.sql("update worker set last_seen_at = now() - interval '3 minutes' where id = :id")
                .param("id", juniper).update();
        sweeper("worker-liveness").runOnce();
        // everyone registered a while ago: netbox-sync, which never polled, is now deaf
        jdbc.sql("update worker set registered_at = registered_at - interval '10 minutes', "
                + "state_changed_at = state_changed_at - interval '10 minutes'").update();
        assertThat(api.get("/workers/" + netbox).at("/deaf").asBoolean()).isTrue();
    }

    private UUID worker(String name, String host, Map<String, String> labels, int concurrency,
            List<Map<String, Object>> blocks) {
        UUID id = registerWorker(Map.of("name", name, "hostname", host, "labels", labels,
                "concurrency", concurrency, "version", "1.4.0"));
        registerBlocks(id, blocks);
        return id;
    }

    private static Map<String, Object> fb(String name, String version, String flag, String description) {
        return flag == null ? Map.of("name", name, "version", version, "description", description)
                : Map.of("name", name, "version", version, flag, true, "description", description);
    }

    private UUID blockId(String name) {
        return jdbc.sql("select id from function_block where name = :name").param("name", name)
                .query(UUID.class).single();
    }

    private void job(UUID functionBlockId, Map<String, Object> payload) {
        Api.Response created = api.post("/blackboard/jobs",
                Map.of("functionBlockId", functionBlockId, "type", "EXECUTE", "payload", payload));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
    }

    private void claim(UUID workerId, int limit) {
        Api.Response claimed = api.post("/blackboard/job", Map.of("workerId", workerId, "limit", limit));
        assertThat(claimed.body()).as(claimed.toString()).hasSize(limit);
    }

    private List<UUID> heldBy(UUID workerId) {
        return jdbc.sql("select id from job where worker_id = :id and status = 'POLLED' order by id")
                .param("id", workerId).query(UUID.class).list();
    }

    private Sweeper sweeper(String name) {
        return sweepers.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    private List<WebElement> rows(String table) {
        return browser.findElements(By.cssSelector("#" + table + " tbody tr:not(.empty)"));
    }

    private String text(String table) {
        return browser.findElement(By.id(table)).getText();
    }

    /** Whether the row of the table whose text contains {@code row} shows a badge reading {@code badge}. */
    private boolean badgeOf(String table, String row, String badge) {
        return rows(table).stream().filter(tr -> tr.getText().contains(row))
                .flatMap(tr -> tr.findElements(By.cssSelector(".badge")).stream())
                .anyMatch(b -> b.getText().equals(badge));
    }
}
