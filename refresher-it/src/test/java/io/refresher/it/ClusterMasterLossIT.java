package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.embedded.EmbeddedRedisCluster;
import io.refresher.testing.RealServers;
import io.refresher.testing.ClusterTestRedis;
import io.refresher.testing.TestApp;
import io.refresher.testing.TestDatabase;
import io.refresher.testing.TestRedis;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

/**
 * One master of a three-master Redis Cluster loses its data ({@code FLUSHALL} on that node only)
 * while the others keep theirs. The service notices within 2 s (a marker in every 256-slot range,
 * so on every master), refills the keys of that master, and recomputes none of the others.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ClusterMasterLossIT {

  private static final int KEYS = 60;
  private static final EmbeddedRedisCluster CLUSTER = ClusterTestRedis.startCluster();
  private static final TestDatabase DATABASE = RealServers.newDatabase("cluster_master_loss");
  private static final TestApp APP =
      TestApp.on("cluster_master_loss", DATABASE, ClusterTestRedis.of(CLUSTER), "redis.mode", "cluster", "scheduler.epochCheckInterval", "1s");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();



  @Test
  void flushAllOnOneMaster_detectedWithin2s_onlyItsKeysRecomputed() {
    for (int i = 1; i <= KEYS; i++) {
      try (Response response =
          APP.putKey("cluster-loss:" + i, "{\"source\":\"stamped\",\"params\":{\"id\":" + i + "},\"ttl\":\"PT1H\",\"policy\":\"always\"}")) {
        assertThat(response.getStatus()).isEqualTo(201);
      }
    }
    // A registration's first refresh can fail on a loaded machine (and is retried): the loss must
    // find every value written, or the refill recomputes the missing ones too.
    await("every key written")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> java.util.stream.IntStream.rangeClosed(1, KEYS).allMatch(i -> APP.get("cluster-loss:" + i) != null));
    int port = CLUSTER.ports().get(0);
    Set<String> onLostMaster = new HashSet<>();
    Map<String, String> before = new HashMap<>();
    RedissonClient node = single(port);
    try {
      for (int i = 1; i <= KEYS; i++) {
        String key = "cluster-loss:" + i;
        before.put(key, APP.get(key));
      }
      node.getKeys().getKeysByPattern("cluster-loss:*").forEach(onLostMaster::add);
      assertThat(onLostMaster).as("keys on the master that loses its data").isNotEmpty().hasSizeLessThan(KEYS);
      long epoch = APP.parts().epochGuard().currentEpoch();
      long runsBefore = DATABASE.executionsOf("stamped_source");

      node.getKeys().flushall();
      Instant flushedAt = Instant.now();

      await("the loss is noticed").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
          .until(() -> APP.parts().epochGuard().currentEpoch() > epoch);
      long noticedMillis = Duration.between(flushedAt, Instant.now()).toMillis();
      await("the lost master's keys are back").atMost(Duration.ofSeconds(20)).ignoreExceptions()
          .until(() -> onLostMaster.stream().allMatch(key -> APP.get(key) != null));
      System.out.printf("cluster: FLUSHALL on one master (%d of %d keys) noticed after %d ms%n", onLostMaster.size(), KEYS, noticedMillis);
      assertThat(noticedMillis).as("ms until the loss was noticed").isLessThanOrEqualTo(2000);
      assertThat(DATABASE.executionsOf("stamped_source") - runsBefore).as("source runs").isEqualTo(onLostMaster.size());
      for (int i = 1; i <= KEYS; i++) {
        String key = "cluster-loss:" + i;
        if (!onLostMaster.contains(key)) {
          assertThat(APP.get(key)).as("untouched value of %s", key).isEqualTo(before.get(key));
          assertThat(APP.parts().dueIndex().plannedAt(key)).as("%s still scheduled", key).isPresent();
        }
      }
    } finally {
      node.shutdown();
    }
  }

  private static RedissonClient single(int port) {
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
    return Redisson.create(config);
  }


}
