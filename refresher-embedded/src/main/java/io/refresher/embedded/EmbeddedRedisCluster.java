package io.refresher.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import redis.embedded.RedisShardedCluster;

/**
 * A real Redis Cluster of three masters (no replicas), started from the binaries in the {@code
 * com.github.codemonstur:embedded-redis} artifact on free loopback ports: enough to prove that the
 * service's keys and scripts respect cluster slots.
 */
public final class EmbeddedRedisCluster implements AutoCloseable {

  private final RedisShardedCluster cluster;
  private final List<Integer> ports;

  private EmbeddedRedisCluster(RedisShardedCluster cluster, List<Integer> ports) {
    this.cluster = cluster;
    this.ports = ports;
  }

  public static EmbeddedRedisCluster start() {
    List<Integer> ports = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ports.add(FreePorts.next());
    }
    try {
      RedisShardedCluster cluster =
          // Ports first: each shard takes its port when it is declared.
          RedisShardedCluster.newRedisCluster()
              .serverPorts(ports)
              .shard("a", 0)
              .shard("b", 0)
              .shard("c", 0)
              .initializationTimeout(Duration.ofSeconds(30))
              .build();
      cluster.start();
      return new EmbeddedRedisCluster(cluster, ports);
    } catch (IOException e) {
      throw new UncheckedIOException("could not start an embedded Redis Cluster", e);
    }
  }

  /** Seed URLs of all nodes, comma-separated, as the service's {@code redis.url} takes them. */
  public String urls() {
    return ports.stream().map(port -> "redis://127.0.0.1:" + port).collect(Collectors.joining(","));
  }

  public List<Integer> ports() {
    return List.copyOf(ports);
  }

  @Override
  public void close() {
    try {
      cluster.stop();
    } catch (IOException e) {
      throw new UncheckedIOException("could not stop the embedded Redis Cluster", e);
    }
  }
}
