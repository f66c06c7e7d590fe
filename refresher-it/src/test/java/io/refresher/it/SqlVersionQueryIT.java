package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A SQL source with a version query, end to end: while the version stays, each refresh cycle runs
 * only the cheap version query and extends the value's TTL (the expensive query never runs and the
 * key never expires); an {@code UPDATE} that changes the version is computed at the next cycle.
 *
 * <p>No stale grace and no jitter: the value lives exactly its TTL, so a cycle that neither
 * recomputed nor extended it shows as an absent key.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class SqlVersionQueryIT {

  private static final Logger LOG = LoggerFactory.getLogger(SqlVersionQueryIT.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TTL = Duration.ofSeconds(2);
  /** TTL minus the TTR (fixed at 500 ms in the test configuration). */
  private static final Duration CYCLE = Duration.ofMillis(1500);

  private static final TestApp APP =
      TestApp.create(
          "sql_version",
          List.of(
              "CREATE TABLE versioned_product (id bigint PRIMARY KEY, name text NOT NULL, updated_at timestamptz NOT NULL)",
              "INSERT INTO versioned_product VALUES (1, 'lamp', now())"),
          "refresh.staleGrace", "0s",
          "refresh.jitter", "0",
          // every computation gives a new value: an unchanged value proves nothing was recomputed
          "sources.versioned.sql",
              "SELECT name || '-' || md5(random()::text) AS versioned_expensive FROM versioned_product WHERE id = :id",
          "sources.versioned.versionSql",
              "SELECT updated_at::text AS versioned_version FROM versioned_product WHERE id = :id",
          "sources.versioned.params.id", "long",
          "sources.versioned.result", "scalar",
          // three timeouts (version, version again, sql) must fit under the 5 s lock lease
          "sources.versioned.timeout", "1500ms");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @Test
  void unchangedVersion_fiveCyclesWithoutTheExpensiveQuery_keyNeverAbsent_thenAnUpdateIsComputed() throws Exception {
    String key = "vproduct:1";
    try (Response response =
        APP.putKey(key, "{\"source\":\"versioned\",\"params\":{\"id\":1},\"ttl\":\"PT2S\",\"policy\":\"always\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
    }
    String first = APP.get(key);
    assertThat(first).startsWith("lamp-");
    long expensiveAtStart = APP.database().executionsOf("versioned_expensive");
    long versionsAtStart = APP.database().executionsOf("versioned_version");

    AtomicLong polls = new AtomicLong();
    AtomicLong absent = new AtomicLong();
    AtomicLong changedValues = new AtomicLong();
    ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor();
    try {
      poller.scheduleAtFixedRate(
          () -> {
            String value = APP.get(key);
            polls.incrementAndGet();
            if (value == null) {
              absent.incrementAndGet();
            } else if (!value.equals(first)) {
              changedValues.incrementAndGet();
            }
          },
          0,
          20,
          TimeUnit.MILLISECONDS);
      // five whole cycles, and a little more
      assertThat(poller.awaitTermination(CYCLE.multipliedBy(5).plusMillis(300).toMillis(), TimeUnit.MILLISECONDS)).isFalse();
    } finally {
      poller.shutdownNow();
    }
    long expensive = APP.database().executionsOf("versioned_expensive") - expensiveAtStart;
    long versions = APP.database().executionsOf("versioned_version") - versionsAtStart;
    JsonNode status = status(key);
    LOG.info(
        "five cycles with the version unchanged: {} version queries, {} expensive queries, {} polls, {} absent; status {}",
        versions, expensive, polls.get(), absent.get(), status);

    assertThat(expensive).as("expensive query runs while the version is unchanged").isZero();
    assertThat(versions).as("version queries over five cycles").isGreaterThanOrEqualTo(5);
    assertThat(absent.get()).as("polls that found the key absent").isZero();
    assertThat(changedValues.get()).as("polls that saw another value").isZero();
    assertThat(polls.get()).isGreaterThan(200);
    assertThat(status.path("lastRefreshOutcome").asText()).isEqualTo("revalidated");
    assertThat(status.hasNonNull("lastRevalidatedAt")).isTrue();

    APP.database().execute("UPDATE versioned_product SET name = 'desk', updated_at = updated_at + interval '1 second' WHERE id = 1");

    await("the update computed at the next cycle")
        .atMost(CYCLE.multipliedBy(2).plusSeconds(1))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> String.valueOf(APP.get(key)).startsWith("desk-"));
    assertThat(APP.database().executionsOf("versioned_expensive") - expensiveAtStart).as("expensive query runs after the update").isEqualTo(1);
    assertThat(status(key).path("lastRefreshOutcome").asText()).isEqualTo("refreshed");
  }

  private static JsonNode status(String key) throws Exception {
    try (Response response = APP.getKey(key)) {
      return JSON.readTree(response.readEntity(String.class)).path("status");
    }
  }
}
