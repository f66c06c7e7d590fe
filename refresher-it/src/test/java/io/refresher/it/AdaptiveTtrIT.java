package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The adaptive TTR on a real service and a real slow query: a source that gets slower gets a
 * longer TTR, up to the configured maximum, and a shorter one again when it speeds up; the key's
 * status shows the TTR with its inputs.
 *
 * <p>The TTR follows the maximum (percentile 1.0) of the last 3 compute durations; with no lag
 * (refreshes here are manual) it is {@code compute + retryBase (100 ms) + compute}, within [50 ms,
 * 2 s].
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class AdaptiveTtrIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String KEY = "ttr:tunable";
  private static final TestApp APP =
      TestApp.create(
          "adaptive_ttr",
          List.of(
              "CREATE TABLE test_delay (id BIGINT PRIMARY KEY, delay_ms INT NOT NULL)",
              "INSERT INTO test_delay VALUES (1, 20)"),
          "refresh.ttr.min", "50ms",
          "refresh.ttr.max", "2s",
          "refresh.ttr.history", "3",
          "refresh.ttr.percentile", "1.0",
          "refresh.retryBase", "100ms",
          "refresh.lockLease", "10s");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @Test
  void sourceGetsSlower_ttrGrowsWithinBounds_andShrinksWhenItSpeedsUp() {
    try (Response response =
        APP.putKey(KEY, "{\"source\":\"tunable\",\"params\":{\"id\":1},\"ttl\":\"PT1M\",\"policy\":\"always\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
    }
    JsonNode fast = ttrAfterRefreshesTaking(20);
    assertThat(fast.get("computeMillis").asLong()).isBetween(20L, 500L);
    assertThat(fast.get("samples").asInt()).isEqualTo(3);
    assertThat(fast.get("millis").asLong())
        .isEqualTo(Math.max(50, fast.get("lagMillis").asLong() + 2 * fast.get("computeMillis").asLong() + 100));

    JsonNode slow = ttrAfterRefreshesTaking(600);
    assertThat(slow.get("computeMillis").asLong()).isGreaterThanOrEqualTo(600);
    assertThat(slow.get("retryRoomMillis").asLong()).isEqualTo(100 + slow.get("computeMillis").asLong());
    assertThat(slow.get("millis").asLong()).isBetween(fast.get("millis").asLong() + 1000, 2000L);

    JsonNode slowest = ttrAfterRefreshesTaking(1500);
    assertThat(slowest.get("unclampedMillis").asLong()).isGreaterThan(3000);
    assertThat(slowest.get("millis").asLong()).isEqualTo(2000);
    assertThat(slowest.get("limitedBy").asText()).isEqualTo("max");

    JsonNode fastAgain = ttrAfterRefreshesTaking(20);
    assertThat(fastAgain.get("millis").asLong()).isLessThan(500).isGreaterThanOrEqualTo(50);

    // The last refresh scheduled the next one with that TTR (due times reach the index in batches).
    long ttr = fastAgain.get("millis").asLong();
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(5))
        .until(
            () -> {
              JsonNode status = status();
              return status.get("nextRefreshAt") != null
                  && java.time.Instant.parse(status.get("nextRefreshAt").asText())
                      .equals(java.time.Instant.parse(status.get("expiresAt").asText()).minusMillis(ttr));
            });
  }

  /** Sets the source's delay, refreshes 3 times (the history length) and returns the key's TTR view. */
  private static JsonNode ttrAfterRefreshesTaking(int delayMillis) {
    APP.database().execute("UPDATE test_delay SET delay_ms = " + delayMillis + " WHERE id = 1");
    for (int i = 0; i < 3; i++) {
      try (Response response = APP.refreshKey(KEY)) {
        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(response.readEntity(String.class)).contains("\"outcome\":\"refreshed\"");
      }
    }
    return status().get("ttr");
  }

  private static JsonNode status() {
    try (Response response = APP.getKey(KEY)) {
      assertThat(response.getStatus()).isEqualTo(200);
      return JSON.readTree(response.readEntity(String.class)).get("status");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
