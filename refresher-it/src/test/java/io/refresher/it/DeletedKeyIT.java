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
 * A deleted key stays deleted: a refresh that was already running when its registration was
 * deleted cannot write afterwards (its write carries the registration's generation, and the delete
 * left a tombstone the write script checks), and a delete that cannot reach Redis changes nothing,
 * so that it can be retried.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class DeletedKeyIT {

  private static final TestApp APP =
      TestApp.create(
          "deleted_key",
          List.of(
              "CREATE TABLE test_delay (id bigint PRIMARY KEY, delay_ms int NOT NULL)",
              "INSERT INTO test_delay VALUES (1, 0), (2, 0), (3, 0)"));
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @Test
  void deleteWithEvict_whileARefreshRuns_itsWriteNeverLands() throws Exception {
    String key = "deleted:inflight";
    register(key, 1);
    APP.database().execute("UPDATE test_delay SET delay_ms = 1500 WHERE id = 1");
    CompletableFuture<Integer> running =
        CompletableFuture.supplyAsync(
            () -> {
              try (Response response = APP.refreshKey(key)) {
                return response.getStatus();
              }
            });
    await("the refresh holds the key's lock")
        .atMost(Duration.ofSeconds(10))
        .until(() -> APP.reader().getKeys().countExists(CacheKeys.lockName(key)) == 1);

    try (Response deleted = APP.deleteKey(key, true)) {
      assertThat(deleted.getStatus()).isEqualTo(204);
    }
    assertThat(APP.get(key)).as("evicted at once").isNull();
    assertThat(running.get(15, TimeUnit.SECONDS)).as("the running refresh finished").isEqualTo(200);

    await("a deleted key stays absent")
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(5))
        .until(() -> APP.get(key) == null);
    try (Response gone = APP.getKey(key)) {
      assertThat(gone.getStatus()).isEqualTo(404);
    }
  }

  @Test
  void deleteThenRegisterAgain_newRegistrationIsWritten() {
    String key = "deleted:again";
    register(key, 2);
    try (Response deleted = APP.deleteKey(key, true)) {
      assertThat(deleted.getStatus()).isEqualTo(204);
    }
    assertThat(APP.get(key)).isNull();

    register(key, 2);

    assertThat(APP.get(key)).as("the new registration's value").startsWith("tunable-");
  }

  @Test
  void deleteWithEvict_redisUnreachable_answers503AndKeepsTheRegistration_retrySucceeds() {
    String key = "deleted:retry";
    register(key, 3);
    APP.redis().freeze();
    try {
      try (Response refused = APP.deleteKey(key, true)) {
        assertThat(refused.getStatus()).isEqualTo(503);
        assertThat(refused.getHeaderString("Retry-After")).isNotNull();
      }
    } finally {
      APP.redis().thaw();
    }
    try (Response stillThere = APP.getKey(key)) {
      assertThat(stillThere.getStatus()).as("a rejected delete changed nothing").isEqualTo(200);
    }

    try (Response retried = APP.deleteKey(key, true)) {
      assertThat(retried.getStatus()).isEqualTo(204);
    }
    assertThat(APP.get(key)).isNull();
    try (Response gone = APP.getKey(key)) {
      assertThat(gone.getStatus()).isEqualTo(404);
    }
  }

  private static void register(String key, long id) {
    try (Response response =
        APP.putKey(
            key, "{\"source\":\"tunable\",\"params\":{\"id\":" + id + "},\"ttl\":\"PT5S\",\"policy\":\"always\"}")) {
      assertThat(response.getStatus()).isIn(200, 201);
    }
    assertThat(APP.get(key)).startsWith("tunable-");
  }
}
