package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.AccessReporter;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The hot-set cap on a real service: with room for 3 keys and 6 keys above the threshold, the 3
 * hottest are kept fresh, the other 3 are left out and counted, and the set follows the ranking
 * when it changes.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class HotSetCapIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TestApp APP =
      TestApp.create(
          "hot_set_cap",
          List.of(),
          "access.maxHotKeys", "3",
          "access.halfLife", "1s",
          "access.hotThreshold", "5",
          "access.coldAfter", "2s",
          "access.sampleInterval", "250ms",
          "access.settle", "300ms");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();
  private static AccessReporter reads;

  @AfterAll
  static void stopReading() {
    if (reads != null) {
      reads.close();
    }
  }

  @Test
  void capReached_hottestKeysKept_restLeftOutAndCounted() {
    reads = new AccessReporter(APP.redis());
    for (int i = 1; i <= 6; i++) {
      try (Response response =
          APP.putKey("cap:" + i, "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT10S\"}")) {
        assertThat(response.getStatus()).isEqualTo(201);
      }
      reads.read("cap:" + i, 20.0 * i); // 20 .. 120 reads/s, all above the threshold of 5
    }

    await("the hot set holds the 3 hottest keys")
        .atMost(Duration.ofSeconds(20))
        .until(() -> hotKeys().equals(Set.of("cap:4", "cap:5", "cap:6")) && leftOutNow() == 3);
    await("and keeps holding them")
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(4))
        .until(() -> hotKeys().equals(Set.of("cap:4", "cap:5", "cap:6")) && leftOutNow() == 3);
    assertThat(EXTENSION.getEnvironment().metrics().counter("refresher.hot.left-out").getCount())
        .as("left-out key samplings counted")
        .isGreaterThanOrEqualTo(3);
    for (int i = 1; i <= 3; i++) {
      assertThat(refreshing("cap:" + i)).as("cap:%d is left out: not refreshed", i).isFalse();
    }
    for (int i = 4; i <= 6; i++) {
      assertThat(refreshing("cap:" + i)).as("cap:%d is hot: refreshed", i).isTrue();
    }

    // cap:1 becomes the hottest: it gets in, and the coolest of the three (cap:4) makes room.
    reads.read("cap:1", 400);
    await("the set follows the ranking")
        .atMost(Duration.ofSeconds(20))
        .until(() -> hotKeys().equals(Set.of("cap:1", "cap:5", "cap:6")) && leftOutNow() == 3);
    await("cap:1 is refreshed again, cap:4 no longer")
        .atMost(Duration.ofSeconds(10))
        .until(() -> refreshing("cap:1") && !refreshing("cap:4"));
  }

  @Test
  void hotList_needsTheToken_andALimitBetween1And1000() {
    try (Response response = APP.api("/v1/hot").request().get()) {
      assertThat(response.getStatus()).isEqualTo(401);
    }
    for (String limit : List.of("0", "1001", "x")) {
      try (Response response = APP.authorized(APP.api("/v1/hot").queryParam("limit", limit)).get()) {
        assertThat(response.getStatus()).as("limit=%s", limit).isEqualTo(422);
        JsonNode error = JSON.readTree(response.readEntity(String.class));
        assertThat(error.at("/errors/0/field").asText()).isEqualTo("limit");
        assertThat(error.at("/errors/0/rule").asText()).isEqualTo("must be a whole number between 1 and 1000");
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    JsonNode body = json(APP.hot(1));
    assertThat(body.get("hotThreshold").asDouble()).isEqualTo(5.0);
    assertThat(body.get("items").size()).isLessThanOrEqualTo(1);
  }

  private static long leftOutNow() {
    return ((Number) EXTENSION.getEnvironment().metrics().getGauges().get("refresher.hot.left-out-now").getValue())
        .longValue();
  }

  private static Set<String> hotKeys() {
    Set<String> keys = new TreeSet<>();
    json(APP.hot(100)).get("items").forEach(item -> keys.add(item.get("key").asText()));
    return keys;
  }

  private static boolean refreshing(String key) {
    return json(APP.getKey(key)).at("/status/refreshing").asBoolean();
  }

  private static JsonNode json(Response response) {
    try (response) {
      assertThat(response.getStatus()).isEqualTo(200);
      return JSON.readTree(response.readEntity(String.class));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
