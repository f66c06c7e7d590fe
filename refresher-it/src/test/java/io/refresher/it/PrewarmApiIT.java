package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code POST /v1/prewarm} refills the registered keys whose values are missing (deleted here
 * behind the service's back), at the datasource's bound, and leaves present ones alone; a second
 * POST while one runs answers 409; {@code GET /v1/prewarm} follows it; both need the token.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class PrewarmApiIT {

  private static final int KEYS = 40;
  private static final int BOUND = 20;
  private static final TestApp APP =
      TestApp.create("prewarm_api", List.of(), "database.maxQueriesPerSecond", Integer.toString(BOUND), "refresh.staleGrace", "1h",
          "refresh.lockLease", "15s"); // the rate wait (maxWait 10 s) and a source's timeout fit under it
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @Test
  void postPrewarm_missingKeysRefilledAtTheBound_presentOnesUntouched_secondPostConflicts() {
    List<String> keys = new ArrayList<>();
    for (int i = 1; i <= KEYS + 5; i++) {
      String key = "manual:" + i;
      keys.add(key);
      try (Response response =
          APP.putKey(key, "{\"source\":\"stamped\",\"params\":{\"id\":" + i + "},\"ttl\":\"PT1H\",\"policy\":\"always\"}")) {
        assertThat(response.getStatus()).isEqualTo(201);
      }
    }
    // The last five stay; the others are deleted behind the service's back.
    List<String> deleted = keys.subList(0, KEYS);
    APP.reader().getKeys().delete(deleted.toArray(String[]::new));
    Map<String, String> kept = new java.util.HashMap<>();
    keys.subList(KEYS, keys.size()).forEach(key -> kept.put(key, APP.get(key)));
    long runsBefore = APP.database().executionsOf("stamped_source");

    try (Response unauthorized = APP.api("/v1/prewarm").request().post(Entity.json(""))) {
      assertThat(unauthorized.getStatus()).isEqualTo(401);
    }
    try (Response started = APP.authorized(APP.api("/v1/prewarm")).post(Entity.json(""))) {
      assertThat(started.getStatus()).isEqualTo(202);
      Map<?, ?> status = (Map<?, ?>) started.readEntity(Map.class).get("prewarm");
      assertThat(status.get("state")).isEqualTo("running");
      assertThat(status.get("trigger")).isEqualTo("manual");
      assertThat(((Number) status.get("total")).intValue()).isEqualTo(KEYS);
    }
    try (Response again = APP.authorized(APP.api("/v1/prewarm")).post(Entity.json(""))) {
      assertThat(again.getStatus()).isEqualTo(409);
      assertThat(again.readEntity(Map.class).get("message").toString()).contains("already running");
    }
    try (Response running = APP.authorized(APP.api("/v1/prewarm")).get()) {
      Map<?, ?> status = (Map<?, ?>) running.readEntity(Map.class).get("prewarm");
      assertThat(((Number) status.get("done")).intValue() + ((Number) status.get("left")).intValue()).isEqualTo(KEYS);
    }

    await("the manual prewarm finishes")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> {
          try (Response response = APP.authorized(APP.api("/v1/prewarm")).get()) {
            Map<?, ?> status = (Map<?, ?>) response.readEntity(Map.class).get("prewarm");
            assertThat(status.get("state")).isEqualTo("finished");
            assertThat(((Number) status.get("done")).intValue()).isEqualTo(KEYS);
          }
        });
    for (String key : deleted) {
      assertThat(APP.get(key)).as(key).isNotNull();
    }
    kept.forEach((key, value) -> assertThat(APP.get(key)).as("present %s untouched", key).isEqualTo(value));
    assertThat(APP.database().executionsOf("stamped_source") - runsBefore).isEqualTo(KEYS);
    // The bound's metrics, named as docs/prewarm.md and the alert rules in docs/operations.md say.
    var metrics = APP.extension().getEnvironment().metrics();
    assertThat(metrics.getTimers().get("refresher.datasource.default.wait").getCount()).isGreaterThanOrEqualTo(KEYS);
    assertThat(metrics.getMeters()).containsKey("refresher.datasource.default.throttled");
    assertThat(metrics.getGauges()).containsKeys(
        "refresher.datasource.default.waiting", "refresher.datasource.default.max-queries-per-second");
  }
}
