package io.refresher.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.client.protocol.AccessProtocol;
import io.refresher.client.protocol.CacheKeys;
import io.refresher.client.driver.RedisDriver;
import io.refresher.client.redisson.RedissonDriver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.junit.jupiter.api.Test;

/**
 * The client on a real three-master Redis Cluster, connected by URL: from comma-separated seed
 * URLs, and from one configuration endpoint said to be a cluster ({@code redis-cluster://}), as
 * managed services give. Values and metadata in their keys' slots, counts in shard buckets spread
 * over the nodes. And the driver contract on the application's Redisson cluster client.
 */
class ClusterClientIT extends ClusterDriverContract {

  private final List<RedissonClient> clients = new ArrayList<>();

  @Override
  protected RedisDriver connect(List<Integer> seedPorts) {
    Config config = new Config();
    seedPorts.forEach(port -> config.useClusterServers().addNodeAddress("redis://127.0.0.1:" + port));
    RedissonClient client = Redisson.create(config);
    clients.add(client);
    return RedissonDriver.of(client);
  }

  @Override
  protected void disconnectAll() {
    clients.forEach(RedissonClient::shutdown);
    clients.clear();
  }

  @Test
  void seedUrls_readLoadAndCountAcrossSlots() {
    readLoadAndCount(cluster().urls(), "seeds:product:");
  }

  @Test
  void oneConfigurationEndpoint_saidToBeACluster_readLoadAndCountAcrossSlots() {
    readLoadAndCount("redis-cluster://127.0.0.1:" + cluster().ports().get(0), "endpoint:product:");
  }

  private static void readLoadAndCount(String url, String prefix) {
    List<String> keys = new ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      keys.add(prefix + i);
    }
    assertThat(keys.stream().map(CacheKeys::slot).distinct().count()).isGreaterThan(10);
    Map<String, Long> expected = new HashMap<>();
    try (RefresherClient client = RefresherClient.builder(url).build()) {
      for (String key : keys) {
        String value = client.get(key, Duration.ofMinutes(1), () -> "value of " + key);
        assertThat(value).isEqualTo("value of " + key);
        assertThat(client.get(key)).isEqualTo("value of " + key);
        expected.put(key, 2L);
      }
      assertThat(client.stats().loaderRuns()).isEqualTo(keys.size());
    } // close() flushes the counts

    Config config = new Config();
    cluster().ports().forEach(port -> config.useClusterServers().addNodeAddress("redis://127.0.0.1:" + port));
    RedissonClient reader = Redisson.create(config);
    try {
      Map<String, Long> counted = new HashMap<>();
      long second = AccessProtocol.secondOf(System.currentTimeMillis());
      // The counts were flushed within the last few seconds, into the bucket of their second.
      for (long s = second - 5; s <= second; s++) {
        for (int shard = 0; shard < AccessProtocol.SHARDS; shard++) {
          String bucket = AccessProtocol.bucketKey(shard, s);
          reader.<String, String>getMap(bucket, StringCodec.INSTANCE)
              .readAllMap()
              .forEach(
                  (key, count) -> {
                    if (key.startsWith(prefix)) {
                      counted.merge(key, Long.parseLong(count), Long::sum);
                    }
                  });
        }
      }
      assertThat(counted).isEqualTo(expected);
    } finally {
      reader.shutdown();
    }
  }
}
