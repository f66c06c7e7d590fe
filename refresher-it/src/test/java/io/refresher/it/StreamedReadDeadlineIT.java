package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestApp;
import io.refresher.testing.TestDatabase;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.core.Response;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
 * A {@code rows} source whose first fetch is quick and whose later rows trickle (a quarter of a
 * second each), on a datasource bounded to two queries at once. The statement timeout covers only
 * the execution and the first fetch: before the fix, the second fetch ran on until its last row
 * (20.25 s against a 2 s timeout and a 5 s lease), the concurrency slots expired under the reads,
 * and six ran at once against {@code maxConcurrent: 2}. The read must stop at the source's
 * timeout, and the bound must hold.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class StreamedReadDeadlineIT {

  private static final int KEYS = 6;
  private static final int MAX_CONCURRENT = 2;
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  private static final TestDatabase DATABASE = RealServers.newDatabase("streamed_read_deadline");
  private static final TestApp APP =
      TestApp.on(
          "streamed_read_deadline",
          DATABASE,
          RealServers.newRedis(),
          // 100 rows at once (one fetch of the loader's 100), then 81 rows of 250 ms each
          "sources.trickle.sql",
          "SELECT i AS trickle_source FROM generate_series(1, 181) i WHERE i <= 100 OR pg_sleep(0.25)::text = ''",
          "sources.trickle.result", "rows",
          "sources.trickle.timeout", TIMEOUT.toMillis() + "ms",
          "sources.trickle.datasource", "bounded",
          "datasources.bounded.url", DATABASE.url(),
          "datasources.bounded.user", DATABASE.user(),
          "datasources.bounded.password", DATABASE.password(),
          "datasources.bounded.maxPoolSize", "10",
          "datasources.bounded.maxConcurrent", String.valueOf(MAX_CONCURRENT),
          "datasources.bounded.maxWait", "1s",
          "scheduler.workers", "8");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @Test
  void trickleAfterTheFirstFetch_readStopsAtItsTimeout_boundHolds() throws Exception {
    List<Thread> registering = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      String key = "trickle:" + i;
      Thread thread = new Thread(() -> register(key), "register-" + key);
      thread.start();
      registering.add(thread);
    }
    AtomicInteger mostAtOnce = new AtomicInteger();
    AtomicLong longestReadMillis = new AtomicLong();
    long started = System.nanoTime();
    ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor();
    try (Connection watcher = DATABASE.connect()) {
      poller.scheduleAtFixedRate(
          () -> {
            long[] reads = readsNow(watcher);
            mostAtOnce.accumulateAndGet((int) reads[0], Math::max);
            longestReadMillis.accumulateAndGet(reads[1], Math::max);
          },
          0,
          50,
          TimeUnit.MILLISECONDS);
      // Every key's read ends (each ends its refresh as failed: the rows never come in time).
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> failedKeys() == KEYS);
    } finally {
      poller.shutdownNow();
      poller.awaitTermination(5, TimeUnit.SECONDS);
      for (Thread thread : registering) {
        thread.join(30_000);
      }
    }
    double tookSeconds = (System.nanoTime() - started) / 1e9;
    System.out.printf(
        "streamed read: longest read %d ms (timeout %d ms, lease 5 s); at most %d reads at once (maxConcurrent %d);"
            + " %d keys failed after %.2f s; error '%s'%n",
        longestReadMillis.get(),
        TIMEOUT.toMillis(),
        mostAtOnce.get(),
        MAX_CONCURRENT,
        KEYS,
        tookSeconds,
        APP.meta("trickle:0").get("error"));

    assertThat(APP.meta("trickle:0").get("errorKind")).isEqualTo("TIMEOUT");
    // The cancel reaches the server within a round trip; the sampling adds up to 50 ms.
    assertThat(longestReadMillis.get())
        .as("longest read against a %d ms timeout", TIMEOUT.toMillis())
        .isLessThan(TIMEOUT.toMillis() + 1_000);
    assertThat(mostAtOnce.get()).as("reads at once, maxConcurrent %d", MAX_CONCURRENT).isLessThanOrEqualTo(MAX_CONCURRENT);
  }

  /** The trickle reads the database is running now, and the age of the oldest one's transaction. */
  private static long[] readsNow(Connection watcher) {
    try (Statement statement = watcher.createStatement();
        ResultSet row =
            statement.executeQuery(
                "SELECT count(*), coalesce(max(extract(epoch FROM clock_timestamp() - xact_start) * 1000), 0)::bigint"
                    + " FROM pg_stat_activity WHERE query LIKE '%trickle_source%'"
                    + " AND state IN ('active', 'idle in transaction') AND pid <> pg_backend_pid()")) {
      row.next();
      return new long[] {row.getLong(1), row.getLong(2)};
    } catch (SQLException e) {
      return new long[] {0, 0};
    }
  }

  private static int failedKeys() {
    int failed = 0;
    for (int i = 0; i < KEYS; i++) {
      if (APP.meta("trickle:" + i).get("errorKind") != null) {
        failed++;
      }
    }
    return failed;
  }

  /**
   * A registration answers after its first refresh; the test client may give up on it first (the
   * read it waits for is what is under test), and the registration stands all the same.
   */
  private static void register(String key) {
    try (Response response = APP.putKey(key, "{\"source\":\"trickle\",\"ttl\":\"PT1H\",\"policy\":\"always\"}")) {
      assertThat(response.getStatus()).isIn(200, 201);
    } catch (ProcessingException e) {
      // timed out waiting for the first refresh
    }
  }
}
