package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.client.protocol.CacheKeys;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A key replaced while a refresh of its old registration runs: the old refresh's write is refused
 * once the replacement is committed, and the replacement is computed as soon as the key's lock is
 * free. Before, the old refresh wrote its value (the stored generation was still the old one), the
 * replacement's own refresh had been skipped as locked, and the old value stayed a whole TTL.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ReplacedKeyIT {

  private static final TestApp APP =
      TestApp.withConfig(
          "replaced_key",
          List.of(
              "CREATE TABLE test_slow (name text PRIMARY KEY, delay_ms int NOT NULL, fail boolean NOT NULL)",
              "INSERT INTO test_slow VALUES ('k', 0, false)"),
          """
          sources:
            replaceable:
              sql: >-
                SELECT pg_sleep(delay_ms / 1000.0)::text
                  || CASE WHEN fail AND :v = 'old' THEN (1 / (delay_ms - delay_ms))::text ELSE :v END
                  || '|' || md5(random()::text) AS replaceable
                FROM test_slow WHERE name = 'k'
              params:
                v: string
              result: scalar
              timeout: 4s
          """);
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @Test
  void replacedWhileItsRefreshRuns_newValueWithinSecondsAndTheOldWriteRefused() throws Exception {
    assertReplacementWins("replaced:ok", false);
  }

  /** The old registration's refresh fails instead: its failure must not hold the replacement back. */
  @Test
  void replacedWhileItsRefreshFails_newValueWithinSeconds() throws Exception {
    assertReplacementWins("replaced:failing", true);
  }

  private static void assertReplacementWins(String key, boolean oldFails) throws Exception {
    APP.database().execute("UPDATE test_slow SET delay_ms = 0, fail = false");
    register(key, "old");
    await().atMost(Duration.ofSeconds(5)).until(() -> String.valueOf(APP.get(key)).startsWith("old|"));
    APP.database().execute("UPDATE test_slow SET delay_ms = 2000, fail = " + oldFails);

    CompletableFuture<Integer> running =
        CompletableFuture.supplyAsync(
            () -> {
              try (Response response = APP.refreshKey(key)) {
                return response.getStatus();
              }
            });
    await("the old registration's refresh holds the key's lock")
        .atMost(Duration.ofSeconds(10))
        .until(() -> APP.reader().getKeys().countExists(CacheKeys.lockName(key)) == 1);

    long replacedAt = System.nanoTime();
    register(key, "new");

    await("the replacement's value")
        .atMost(Duration.ofSeconds(5))
        .until(() -> String.valueOf(APP.get(key)).startsWith("new|"));
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - replacedAt);
    assertThat(running.get(15, TimeUnit.SECONDS)).as("the old refresh finished").isEqualTo(200);
    await("the old value never comes back")
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(6))
        .until(() -> String.valueOf(APP.get(key)).startsWith("new|"));
    System.out.printf("%s: the replacement's value was in Redis %d ms after the PUT%n", key, tookMillis);
  }

  private static void register(String key, String v) {
    try (Response response =
        APP.putKey(key, "{\"source\":\"replaceable\",\"params\":{\"v\":\"" + v + "\"},\"ttl\":\"PT1H\",\"policy\":\"always\"}")) {
      assertThat(response.getStatus()).isIn(200, 201);
    }
  }
}
