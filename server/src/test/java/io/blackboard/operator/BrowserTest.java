package io.blackboard.operator;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.blackboard.IntegrationTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A real headless Chromium driven through Selenium against the real server, one per test class.
 * Skipped where Debian's chromium and chromium-driver are not installed ({@code .ci/run} installs
 * them).
 */
abstract class BrowserTest extends IntegrationTest {

    static final Path CHROMIUM = Path.of(System.getProperty("blackboard.chromium", "/usr/bin/chromium"));
    static final Path CHROMEDRIVER = Path.of(System.getProperty("blackboard.chromedriver", "/usr/bin/chromedriver"));
    /** An operator token of the test configuration: the page shows data only if it sends it. */
    static final String TOKEN = "test-operator";

    static WebDriver browser;
    static Path profile;

    @BeforeAll
    static void startBrowser() throws IOException {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "needs " + CHROMIUM + " and " + CHROMEDRIVER + " (apt-get install chromium chromium-driver)");
        profile = Files.createTempDirectory("blackboard-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--user-data-dir=" + profile, "--window-size=1440,1180");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    static void stopBrowser() throws IOException {
        if (browser != null) {
            browser.quit();
            browser = null;
        }
        if (profile != null) {
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    /** The page as it is now, kept as {@code target/<name>}. */
    static void screenshot(String name) throws IOException {
        Files.createDirectories(Path.of("target"));
        Files.copy(((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath(), Path.of("target", name),
                StandardCopyOption.REPLACE_EXISTING);
    }
}
