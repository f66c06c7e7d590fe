package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Fail soft: when a source fails or times out, the value already in Redis stays served past its
 * logical expiry (stale grace), the key's status shows the error, retries back off, and the next
 * successful refresh clears the error.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class StaleOnFailureIT {

  private static final TestApp APP =
      TestApp.create(
          "stale_on_failure",
          List.of(
              "CREATE TABLE test_switch (id bigint PRIMARY KEY, ok int NOT NULL)",
              "INSERT INTO test_switch VALUES (1, 1), (2, 1)"));
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();


  @Test
  void failingSource_pastLogicalExpiry_oldValueServedErrorShownThenClearedOnRecovery() {
    String key = "report:1";
    try (Response response =
        APP.putKey(key, "{\"source\":\"switchable\",\"params\":{\"id\":1},\"ttl\":\"PT2S\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
    }
    assertThat(APP.get(key)).startsWith("switchable-100-");

    APP.database().execute("UPDATE test_switch SET ok = 0 WHERE id = 1");
    await("the failure shows in the key's status")
        .atMost(Duration.ofSeconds(10))
        .until(() -> status(key).path("consecutiveFailures").asInt() >= 1);

    String lastGood = APP.get(key);
    long logicalExpiry = Long.parseLong(APP.meta(key).get("expiresAt"));
    await("the logical expiry passes")
        .atMost(Duration.ofSeconds(10))
        .until(() -> System.currentTimeMillis() > logicalExpiry + 1_000);

    assertThat(APP.get(key)).as("value served past its logical expiry").isEqualTo(lastGood);
    assertThat(APP.reader().getBucket(key).remainTimeToLive()).as("physical TTL left").isPositive();
    JsonNode failing = status(key);
    assertThat(failing.path("lastErrorKind").asText()).isEqualTo("ERROR");
    assertThat(failing.path("lastError").asText()).contains("division by zero");
    assertThat(failing.path("consecutiveFailures").asInt()).as("retries went on").isGreaterThanOrEqualTo(2);
    assertThat(failing.path("valuePresent").asBoolean()).isTrue();

    APP.database().execute("UPDATE test_switch SET ok = 1 WHERE id = 1");
    await("the next successful refresh clears the error")
        .atMost(Duration.ofSeconds(10))
        .until(() -> status(key).path("consecutiveFailures").asInt() == 0);
    JsonNode recovered = status(key);
    assertThat(recovered.has("lastError")).isFalse();
    assertThat(APP.get(key)).isNotEqualTo(lastGood).startsWith("switchable-100-");
  }

  @Test
  void sourceSlowerThanItsTimeout_keepsOldValueAndReportsTimeout() {
    String key = "slow:report";
    try (Response response =
        APP.putKey(key, "{\"source\":\"slow\",\"params\":{\"seconds\":0},\"ttl\":\"PT5S\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
    }
    String good = APP.get(key);
    assertThat(good).isEqualTo("slow-");

    JsonNode replaced;
    try (Response response =
        APP.putKey(key, "{\"source\":\"slow\",\"params\":{\"seconds\":1.5},\"ttl\":\"PT5S\"}")) {
      assertThat(response.getStatus()).isEqualTo(200);
      replaced = response.readEntity(JsonNode.class);
    }
    assertThat(replaced.path("refresh").path("outcome").asText()).isEqualTo("failed");
    assertThat(replaced.path("refresh").path("errorKind").asText()).isEqualTo("TIMEOUT");
    assertThat(replaced.path("refresh").path("computeMillis").asLong()).isLessThan(1_500);
    assertThat(APP.get(key)).as("old value still served").isEqualTo(good);
    assertThat(status(key).path("lastErrorKind").asText()).isEqualTo("TIMEOUT");
  }

  private static JsonNode status(String key) {
    try (Response response = APP.getKey(key)) {
      assertThat(response.getStatus()).isEqualTo(200);
      return response.readEntity(JsonNode.class).path("status");
    }
  }
}
