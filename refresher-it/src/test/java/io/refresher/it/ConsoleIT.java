package io.refresher.it;

import static io.refresher.it.HotKeyApps.register;
import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.AccessReporter;
import io.refresher.testing.ClientRuntimes;
import io.refresher.testing.TestApp;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Issue 22, acceptance 1: the console at {@code /console/} driven in a real headless Chromium
 * (Debian's {@code chromium} and {@code chromium-driver}, installed when missing) against the
 * service on real Redis and PostgreSQL, with readers making keys hot. Signed in with the read token:
 * the overview shows the refresh rate, the hot set against its cap and Redis and PostgreSQL up, with
 * a chart each; the hot keys page lists the hot keys with their rates and last outcomes, a page at a
 * time; a key's page shows its metadata, its refresh button is disabled. Signed in as admin:
 * refreshing a key changes its last refresh time. An uncovered hot key appears with its suggested
 * pattern; templates and sources are listed with the keys they keep; the change-feeds page shows the
 * replica listening and a notification received; a refill started after the popular keys' values
 * were deleted reaches finished on the page. Each page's screenshot is written to {@code
 * target/console-screenshots/}.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ConsoleIT {

  private static final String READ = "console-read-token-0123456789";
  private static final TestApp APP =
      HotKeyApps.create(
          "console",
          "admin.readToken", READ,
          // a change feed for the change-feeds page: product:{id} keys named on a channel
          "sources.product-by-id.changes.channel", "console_changed",
          "sources.product-by-id.changes.payload", "key");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();
  private static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

  private static WebDriver browser;
  private static AccessReporter reads;

  @BeforeAll
  static void openBrowser() throws IOException {
    String driver = ClientRuntimes.chromedriver();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium());
    // --no-sandbox: the tests may run as root in a container, where Chromium's sandbox cannot start.
    options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900", "--lang=en");
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(driver)).usingAnyFreePort().build();
    browser = new ChromeDriver(service, options);
    Files.createDirectories(SCREENSHOTS);
  }

  @AfterAll
  static void closeBrowser() {
    if (browser != null) {
      browser.quit();
    }
    if (reads != null) {
      reads.close();
    }
  }

  private static String chromium() {
    for (String candidate : List.of("/usr/bin/chromium", "/usr/lib/chromium/chromium", "/usr/bin/chromium-browser")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return candidate;
      }
    }
    throw new AssertionError("Debian's chromium is not installed (clients/install-runtimes.sh chromium)");
  }

  @Test
  void readTokenSeesAndCannotChange_adminRefreshes_uncoveredKeySuggested_refillFinishes() throws IOException {
    register(APP, "console:1");
    register(APP, "console:2");
    reads = new AccessReporter(APP.redis());
    reads.read("console:1", 40);
    reads.read("console:2", 20);
    reads.read("orders:77", 30);

    signIn(READ);
    // The overview (the page after signing in) redraws itself every sampling interval (5 s).
    waitFor(
        () -> !tile("Refreshes/s").isEmpty() && Double.parseDouble(tile("Refreshes/s")) > 0 && tile("Hot keys").matches("[1-9]\\d* of \\d+"),
        "the overview's refresh rate and hot set");
    // a few points, so that the screenshot shows lines
    waitFor(() -> text(By.id("overview-points")).matches("This replica: ([3-9]|\\d\\d+) points.*"), "three points of history");
    assertThat(tile("Redis")).isEqualTo("up");
    assertThat(tile("PostgreSQL")).isEqualTo("up");
    assertThat(browser.findElements(By.cssSelector("figure.chart canvas"))).as("a chart per figure, drawn").hasSize(5);
    screenshot("overview");

    // The page shows the hot set as it is when loaded: reload until the reads were sampled.
    browser.get(console() + "#/hot");
    waitFor(
        () -> {
          browser.navigate().refresh();
          return rateOf("console:1") > 5 && rateOf("console:2") > 5 && rowOf("hot-keys", "console:1").contains("refreshed");
        },
        "the hot keys listed with their rates and outcomes");
    assertThat(text(By.id("hot-keys-page"))).isEqualTo("1–2 of 2");
    assertThat(browser.findElement(By.id("hot-keys-next")).isEnabled()).as("one page only").isFalse();
    screenshot("hot-keys");

    browser.findElement(By.linkText("console:1")).click();
    waitFor(() -> text(By.id("key-facts")).contains("counted"), "the key's page");
    assertThat(fact("Source")).isEqualTo("counted");
    assertThat(fact("TTL")).isEqualTo("PT2S");
    assertThat(browser.findElement(By.id("refresh")).isEnabled()).as("refresh, read token").isFalse();
    assertThat(browser.findElement(By.id("delete")).isEnabled()).as("delete, read token").isFalse();
    screenshot("key-read-only");

    browser.findElement(By.id("signout")).click();
    signIn(TestApp.TOKEN);
    browser.get(console() + "#/key/" + "console%3A1");
    waitFor(() -> browser.findElement(By.id("refresh")).isEnabled(), "the refresh button, admin");
    String before = fact("Last refresh");
    browser.findElement(By.id("refresh")).click();
    waitFor(() -> text(By.id("outcome")).startsWith("Refresh: "), "the refresh's outcome");
    waitFor(() -> !fact("Last refresh").equals(before), "the last refresh time changes");
    screenshot("key-refreshed");

    browser.get(console() + "#/uncovered");
    waitFor(() -> text(By.id("uncovered")).contains("orders:77"), "the uncovered hot key");
    assertThat(rowOf("uncovered", "orders:77")).contains("orders:{id}");
    screenshot("uncovered");

    try (var created = APP.putTemplate("products", "{\"pattern\":\"product:{id}\",\"source\":\"product-by-id\",\"ttl\":\"PT10M\"}")) {
      assertThat(created.getStatus()).isEqualTo(201);
    }
    browser.get(console() + "#/sources");
    waitFor(() -> text(By.id("templates")).contains("product:{id}") && text(By.id("sources")).contains("counted"), "templates and sources");
    assertThat(rowOf("sources", "product-by-id")).contains("id: long");
    assertThat(cell("sources", "counted", "Keys registered")).isEqualTo("2");
    assertThat(cell("sources", "counted", "Hot keys")).isEqualTo("2");
    screenshot("sources");

    // A change named on the feed's channel: received here, where the one replica listens.
    browser.get(console() + "#/feeds");
    waitFor(() -> text(By.id("feeds")).contains("listening"), "the replica listening");
    assertThat(rowOf("feeds", "default")).contains("NOTIFY console_changed listening");
    APP.database().execute("SELECT pg_notify('console_changed', 'product:7')");
    waitFor(() -> !fact("Received").isEmpty() && Long.parseLong(fact("Received")) >= 1, "the notification received");
    assertThat(rowOf("feeds", "default")).contains("console_changed");
    screenshot("feeds");

    // The popular keys' values gone (as after Redis lost them), a refill started from the page.
    APP.reader().getKeys().delete("console:1", "console:2");
    browser.get(console() + "#/prewarm");
    waitFor(() -> browser.findElement(By.id("start-prewarm")).isEnabled(), "the start button");
    browser.findElement(By.id("start-prewarm")).click();
    waitFor(() -> "manual".equals(fact("Trigger")) && "finished".equals(fact("State")), "the refill finished");
    screenshot("prewarm");
    assertThat(APP.get("console:1")).as("back in Redis (by the refill, or by its own refresh first)").isNotNull();

    // Redis's epoch marker gone, as after a data loss: the overview names it.
    long epoch = APP.parts().epochGuard().currentEpoch();
    APP.reader().getKeys().delete("refresher:epoch");
    browser.get(console() + "#/overview");
    waitFor(() -> text(By.id("latest-data-loss")).contains("data loss, epoch " + (epoch + 1)), "the data loss on the overview");
  }

  private static String console() {
    return "http://127.0.0.1:" + EXTENSION.getLocalPort() + "/console/";
  }

  private static void signIn(String token) {
    browser.get(console() + "#/signin");
    waitFor(() -> !browser.findElements(By.id("token")).isEmpty(), "the sign-in form");
    WebElement input = browser.findElement(By.id("token"));
    input.clear();
    input.sendKeys(token);
    browser.findElement(By.id("signin")).click();
    waitFor(() -> !browser.findElements(By.id("signout")).isEmpty(), "signed in");
  }

  private static String text(By by) {
    List<WebElement> found = browser.findElements(by);
    return found.isEmpty() ? "" : found.get(0).getText();
  }

  private static String tile(String label) {
    List<WebElement> found = browser.findElements(By.cssSelector("strong[data-tile='" + label + "']"));
    return found.isEmpty() ? "" : found.get(0).getText();
  }

  private static String fact(String label) {
    List<WebElement> found = browser.findElements(By.cssSelector("dd[data-fact='" + label + "']"));
    return found.isEmpty() ? "" : found.get(0).getText();
  }

  /** The reads/s the hot keys table shows for the key; 0 while it is not listed. */
  private static double rateOf(String key) {
    for (WebElement row : browser.findElements(By.cssSelector("#hot-keys tbody tr"))) {
      List<WebElement> cells = row.findElements(By.tagName("td"));
      if (!cells.isEmpty() && cells.get(0).getText().equals(key)) {
        return Double.parseDouble(cells.get(1).getText());
      }
    }
    return 0;
  }

  /** The cell of {@code key}'s row under the column titled {@code column}. */
  private static String cell(String table, String key, String column) {
    List<WebElement> titles = browser.findElements(By.cssSelector("#" + table + " thead th"));
    int index = -1;
    for (int i = 0; i < titles.size(); i++) {
      if (titles.get(i).getText().equals(column)) {
        index = i;
      }
    }
    assertThat(index).as("column %s of #%s", column, table).isNotNegative();
    for (WebElement row : browser.findElements(By.cssSelector("#" + table + " tbody tr"))) {
      List<WebElement> cells = row.findElements(By.tagName("td"));
      if (!cells.isEmpty() && cells.get(0).getText().equals(key)) {
        return cells.get(index).getText();
      }
    }
    throw new AssertionError("no row of " + key + " in #" + table + ": " + text(By.id(table)));
  }

  private static String rowOf(String table, String key) {
    for (WebElement row : browser.findElements(By.cssSelector("#" + table + " tbody tr"))) {
      if (row.getText().startsWith(key + " ")) {
        return row.getText();
      }
    }
    throw new AssertionError("no row of " + key + " in #" + table + ": " + text(By.id(table)));
  }

  /** Waits for the condition; on time out, the page's screenshot ({@code failed-<what>.png}) and text say why. */
  private static void waitFor(java.util.function.BooleanSupplier condition, String what) {
    try {
      new WebDriverWait(browser, Duration.ofSeconds(60))
          .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
          .ignoring(org.openqa.selenium.NoSuchElementException.class)
          .until(driver -> condition.getAsBoolean());
    } catch (org.openqa.selenium.TimeoutException e) {
      try {
        screenshot("failed-" + what.replaceAll("[^A-Za-z0-9]+", "-"));
      } catch (IOException | RuntimeException ignored) {
        // the failure below says what matters
      }
      throw new AssertionError(what + " did not come within 60 s; the page at " + browser.getCurrentUrl() + " reads:\n" + text(By.tagName("body")), e);
    }
  }

  private static void screenshot(String name) throws IOException {
    File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
    Files.copy(shot.toPath(), SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
  }
}
