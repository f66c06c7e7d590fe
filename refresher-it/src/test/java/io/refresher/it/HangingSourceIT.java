package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestApp;
import io.refresher.testing.TestDatabase;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A source whose queries hang (until their statement timeout) beside fast sources on the same
 * pool, and one on another datasource: the hanging source can take at most its share of the pool
 * (and so of the workers), so the fast keys on the same pool and the keys of the other datasource
 * keep their schedule.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class HangingSourceIT {

  private static final int HANGING = 12;
  private static final int FAST = 30;
  private static final Duration WATCH = Duration.ofSeconds(15);

  private static final TestDatabase DATABASE = RealServers.newDatabase("hanging_source");
  private static final TestApp APP =
      TestApp.on(
          "hanging_source",
          DATABASE,
          RealServers.newRedis(),
          "sources.hanging.sql", "SELECT 'hanging-' || pg_sleep(30)::text AS hanging_source",
          "sources.hanging.result", "scalar",
          "sources.hanging.timeout", "3s",
          "datasources.other.url", DATABASE.url(),
          "datasources.other.user", DATABASE.user(),
          "datasources.other.password", DATABASE.password(),
          "datasources.other.maxPoolSize", "2",
          "sources.elsewhere.sql", "SELECT 'elsewhere-' || md5(random()::text) AS elsewhere_source",
          "sources.elsewhere.result", "scalar",
          "sources.elsewhere.datasource", "other",
          "sources.elsewhere.timeout", "2s",
          "database.sourceShare", System.getProperty("hanging.share", "0.5"));
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @Test
  void hangingSource_takesAtMostItsShare_otherKeysKeepTheirSchedule() throws Exception {
    List<String> fast = new ArrayList<>();
    for (int i = 0; i < FAST; i++) {
      String key = (i % 3 == 0 ? "elsewhere:" : "fast:") + i;
      fast.add(key);
      register(key, i % 3 == 0 ? "elsewhere" : "counted");
    }
    // The hanging keys come next: each first refresh hangs for its 3 s timeout, and so do the
    // retries, for as long as the test runs.
    List<Thread> registering = new ArrayList<>();
    for (int i = 0; i < HANGING; i++) {
      String key = "hanging:" + i;
      Thread thread = new Thread(() -> register(key, "hanging"), "register-" + key);
      thread.start();
      registering.add(thread);
    }

    AtomicInteger samples = new AtomicInteger();
    AtomicInteger overdue = new AtomicInteger();
    AtomicLong worstOverdueMillis = new AtomicLong();
    AtomicInteger mostHangingAtOnce = new AtomicInteger();
    ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor();
    try {
      poller.scheduleAtFixedRate(
          () -> {
            long now = System.currentTimeMillis();
            for (String key : fast) {
              String expiresAt = APP.meta(key).get("expiresAt");
              samples.incrementAndGet();
              long late = expiresAt == null ? Long.MAX_VALUE : now - Long.parseLong(expiresAt);
              if (late > 0) {
                overdue.incrementAndGet();
                worstOverdueMillis.accumulateAndGet(late, Math::max);
              }
            }
            mostHangingAtOnce.accumulateAndGet(
                (int) DATABASE.queryLong(
                    // Only queries well within the source's 3 s timeout: an older one may be one the
                    // service gave up on and whose cancel is in flight. The timeout runs from when
                    // the driver sent the query, query_start from when the server took it, so on a
                    // loaded machine a query given up on is younger than 3 s by the server's clock:
                    // a clean-clone run saw 5 with those counted (i37, with a 3 s filter; an earlier
                    // one without the filter). Half a second of margin leaves only live queries.
                    "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%hanging_source%' AND state = 'active'"
                        + " AND clock_timestamp() - query_start < interval '2500 milliseconds'"
                        + " AND query NOT LIKE '%pg_stat_activity%'"),
                Math::max);
          },
          500,
          100,
          TimeUnit.MILLISECONDS);
      await().pollDelay(WATCH).atMost(WATCH.plusSeconds(5)).until(() -> true);
    } finally {
      poller.shutdownNow();
      poller.awaitTermination(5, TimeUnit.SECONDS);
      for (Thread thread : registering) {
        thread.join(10_000);
      }
    }

    System.out.printf(
        "hanging source: %d fast-key samples, %d past their logical expiry (worst %d ms); at most %d hanging queries at once"
            + " (pool of %d)%n",
        samples.get(), overdue.get(), worstOverdueMillis.get(), mostHangingAtOnce.get(), 4 + 2);
    // Its share is 3 of the 6 connections; the database may still show a timed-out query as active
    // for a moment after the service gave its slot to the next one, hence one more.
    assertThat(mostHangingAtOnce.get()).as("hanging queries at once: its share of the 6-connection pool").isLessThanOrEqualTo(3 + 1);
    // Without the share (sourceShare 1.0) the hanging source took the whole pool and every worker:
    // 56 % of the samples were past their logical expiry, by up to 6.9 s. With it, only a loaded
    // machine's scheduling noise is left: a generous bound, not a benchmark.
    assertThat(overdue.get())
        .as("fast-key samples past their logical expiry, of %d (worst %d ms)", samples.get(), worstOverdueMillis.get())
        .isLessThanOrEqualTo(samples.get() / 20);
  }

  private static void register(String key, String source) {
    try (Response response =
        APP.putKey(key, "{\"source\":\"" + source + "\",\"ttl\":\"PT2S\",\"policy\":\"always\"}")) {
      assertThat(response.getStatus()).isIn(200, 201);
    }
  }
}
