package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
 * Redis restarts empty: the service notices (its epoch marker is gone), advances the data epoch
 * from PostgreSQL, rebuilds the due index from the registry and refills every registered key.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class RedisDataLossIT {

  private static final TestApp APP =
      TestApp.create("redis_data_loss", List.of(), "refresh.staleGrace", "5s");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();


  @Test
  void redisRestartsEmpty_keysRefilledWithANewEpochAndRegistrationsIntact() {
    List<String> keys = List.of("loss:1", "loss:2", "user:{7}:cart", "catalog/electronics");
    for (String key : keys) {
      try (Response response = APP.putKey(key, "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT30S\",\"policy\":\"always\"}")) {
        assertThat(response.getStatus()).isEqualTo(201);
      }
    }
    long epochBefore = APP.parts().epochGuard().currentEpoch();
    assertThat(APP.meta("loss:1")).containsEntry("epoch", Long.toString(epochBefore));

    APP.redis().loseData();

    await("every key is back in Redis")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> keys.stream().allMatch(key -> APP.get(key) != null));
    assertThat(APP.parts().epochGuard().currentEpoch()).isEqualTo(epochBefore + 1);
    for (String key : keys) {
      assertThat(APP.meta(key)).as("metadata of %s", key).containsEntry("epoch", Long.toString(epochBefore + 1));
    }
    assertThat(APP.parts().dueIndex().size()).isEqualTo(keys.size());
    assertThat(APP.database().queryLong("SELECT count(*) FROM refresher.refresher_key")).isEqualTo(keys.size());
    try (Response response = APP.getKey("loss:1")) {
      assertThat(response.getStatus()).isEqualTo(200);
    }
  }
}
