package io.refresher.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.client.driver.RedisDriver;
import io.refresher.client.protocol.AccessProtocol;
import io.refresher.client.protocol.CacheKeys;
import io.refresher.embedded.EmbeddedRedisCluster;
import io.refresher.embedded.RespConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What every driver must do on a real three-master Redis Cluster: values, metadata and locks in
 * their keys' slots, counts in shard buckets spread over the nodes. Each driver module runs it
 * through a subclass that says how its library connects to a cluster.
 */
public abstract class ClusterDriverContract {

  private static EmbeddedRedisCluster cluster;

  /** A driver on the library's cluster client, from these seed ports (127.0.0.1). */
  protected abstract RedisDriver connect(List<Integer> seedPorts);

  /** Closes what {@link #connect} opened for the library. */
  protected abstract void disconnectAll();

  @BeforeAll
  static void startCluster() {
    cluster = EmbeddedRedisCluster.start();
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  /** The cluster, for a subclass's own tests (keys outside {@code cluster:} and {@code user:}). */
  protected static EmbeddedRedisCluster cluster() {
    return cluster;
  }

  @AfterEach
  void disconnect() {
    disconnectAll();
  }

  @Test
  void readsLoadsAndCounts_acrossSlotsAndNodes() throws IOException {
    List<String> keys = new ArrayList<>();
    for (int i = 1; i <= 40; i++) {
      keys.add("cluster:product:" + i);
    }
    keys.add("user:{42}:cart");
    assertThat(keys.stream().map(CacheKeys::slot).distinct().count()).isGreaterThan(20);
    Map<String, Long> expected = new HashMap<>();
    try (RefresherClient client = RefresherClient.builder(connect(cluster.ports())).build()) {
      for (String key : keys) {
        assertThat(client.get(key, Duration.ofMinutes(1), () -> "value of " + key)).isEqualTo("value of " + key);
        assertThat(client.get(key)).isEqualTo("value of " + key);
        expected.put(key, 2L);
      }
      assertThat(client.stats().loaderRuns()).isEqualTo(keys.size());
      assertThat(client.flush()).isTrue();
      assertThat(client.stats().access().flushed()).isEqualTo(2L * keys.size());
    }
    assertThat(countsOnAllNodes()).isEqualTo(expected);
    assertThat(bucketsOnNodes()).as("nodes holding access buckets").isGreaterThan(1);
  }

  /**
   * Reads per key of this contract's keys ({@code cluster:…}, {@code user:…}), summed over the
   * access buckets of every node (each node's own keys).
   */
  private static Map<String, Long> countsOnAllNodes() throws IOException {
    Map<String, Long> sums = new HashMap<>();
    for (int port : cluster.ports()) {
      try (RespConnection node = RespConnection.open(port, Duration.ofSeconds(5))) {
        for (Object bucket : (List<?>) node.call("KEYS", AccessProtocol.PREFIX + "*")) {
          List<?> fields = (List<?>) node.call("HGETALL", bucket.toString());
          for (int i = 0; i < fields.size(); i += 2) {
            String key = fields.get(i).toString();
            if (key.startsWith("cluster:") || key.startsWith("user:")) {
              sums.merge(key, Long.parseLong(fields.get(i + 1).toString()), Long::sum);
            }
          }
        }
      }
    }
    return sums;
  }

  private static long bucketsOnNodes() throws IOException {
    long nodes = 0;
    for (int port : cluster.ports()) {
      try (RespConnection node = RespConnection.open(port, Duration.ofSeconds(5))) {
        if (!((List<?>) node.call("KEYS", AccessProtocol.PREFIX + "*")).isEmpty()) {
          nodes++;
        }
      }
    }
    return nodes;
  }
}
