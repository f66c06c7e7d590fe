package io.refresher.it;

import io.refresher.client.redisson.RedissonDriver;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.client.protocol.CacheKeys;
import io.refresher.config.RefresherConfiguration;
import io.refresher.embedded.EmbeddedRedisCluster;
import io.refresher.testing.RealServers;
import io.refresher.client.RefresherClient;
import io.refresher.testing.ClusterTestRedis;
import io.refresher.testing.TestApp;
import io.refresher.testing.TestRedis;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

/**
 * The service on a real three-master Redis Cluster: every script touches keys of one slot only
 * (value and metadata; the lock and its token counter; one due-index shard), so registration,
 * scheduled refresh, status, manual refresh and eviction work for keys in every slot, with and
 * without hash tags, without a CROSSSLOT error.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class RedisClusterIT {

  private static final EmbeddedRedisCluster CLUSTER = ClusterTestRedis.startCluster();
  private static final TestApp APP =
      TestApp.on(
          "redis_cluster",
          RealServers.newDatabase("redis_cluster"),
          ClusterTestRedis.of(CLUSTER),
          "redis.mode", "cluster",
          "access.halfLife", "1s",
          "access.hotThreshold", "5",
          "access.sampleInterval", "250ms",
          "access.settle", "300ms");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();





  @Test
  void keysInEverySlotShape_registeredRefreshedReadAndEvictedOnACluster() {
    List<String> keys = new ArrayList<>();
    for (int i = 1; i <= 24; i++) {
      keys.add("product:" + i);
    }
    keys.addAll(List.of("user:{42}:cart", "user:{42}:profile", "a}b", "a{}b", "catalog/electronics"));
    assertThat(keys.stream().map(CacheKeys::slot).distinct().count()).as("slots spread").isGreaterThan(20);

    Map<String, String> firstTokens = new HashMap<>();
    for (String key : keys) {
      try (Response response = APP.putKey(key, "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT2S\"}")) {
        JsonNode body = response.readEntity(JsonNode.class);
        assertThat(response.getStatus()).as("PUT %s: %s", key, body).isEqualTo(201);
        assertThat(body.path("refresh").path("outcome").asText()).as("PUT %s: %s", key, body).isEqualTo("refreshed");
      }
      assertThat(APP.get(key)).as(key).startsWith("counted-");
      firstTokens.put(key, APP.meta(key).get("token"));
    }

    await("every key is refreshed again by the dispatcher")
        .atMost(Duration.ofSeconds(20))
        .until(() -> keys.stream().allMatch(key -> !firstTokens.get(key).equals(APP.meta(key).get("token"))));

    for (String key : List.of("user:{42}:cart", "a}b")) {
      try (Response response = APP.getKey(key)) {
        JsonNode status = response.readEntity(JsonNode.class).path("status");
        assertThat(status.path("valuePresent").asBoolean()).as(key).isTrue();
        assertThat(status.has("nextRefreshAt")).as(key).isTrue();
      }
      try (Response response = APP.refreshKey(key)) {
        assertThat(response.readEntity(JsonNode.class).path("outcome").asText()).as(key).isEqualTo("refreshed");
      }
    }
    try (Response response = APP.deleteKey("a{}b", true)) {
      assertThat(response.getStatus()).isEqualTo(204);
    }
    assertThat(APP.get("a{}b")).isNull();
    assertThat(APP.meta("a{}b")).as("only the tombstone").containsOnlyKeys("generation", "retired");
    assertThat(APP.parts().dispatcher().consecutiveTickFailures()).isZero();
  }

  /**
   * Access counting on a cluster: the client library's buckets spread over the shards' slots, the
   * sampler's pipelined reads span nodes, and popularity and the hot set (one slot) are updated by
   * their scripts; template keys in many slots become hot from reads alone.
   */
  @Test
  void templateKeysReadThroughTheClient_becomeHotOnACluster() {
    APP.database().execute(
        "CREATE TABLE IF NOT EXISTS test_switch (id bigint primary key, ok int)",
        "INSERT INTO test_switch SELECT g, 1 FROM generate_series(1, 12) g ON CONFLICT DO NOTHING");
    try (Response response =
        APP.putTemplate("switches", "{\"pattern\":\"switch:{id}\",\"source\":\"switchable\",\"ttl\":\"PT2S\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
    }
    List<String> keys = new ArrayList<>();
    for (int i = 1; i <= 12; i++) {
      keys.add("switch:" + i);
    }
    assertThat(keys.stream().map(CacheKeys::slot).distinct().count()).as("slots spread").isGreaterThan(8);

    try (RefresherClient client =
        RefresherClient.builder(RedissonDriver.of(APP.reader())).flushInterval(Duration.ofMillis(100)).build()) {
      await("every template key becomes hot and is computed")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> keys.stream().filter(key -> client.get(key) != null).count() == keys.size());
    }
    for (String key : keys) {
      assertThat(APP.get(key)).as(key).startsWith("switchable-");
    }
    await("all of them in the hot set")
        .atMost(Duration.ofSeconds(10))
        .until(() -> keys.stream().allMatch(key -> APP.parts().hotSet().isHot(key)));
    assertThat(APP.parts().dispatcher().consecutiveTickFailures()).isZero();
  }
}
