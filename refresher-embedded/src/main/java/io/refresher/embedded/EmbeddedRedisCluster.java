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
      EmbeddedRedisCluster started = new EmbeddedRedisCluster(cluster, ports);
      try {
        started.awaitEveryNodeOk(Duration.ofSeconds(30));
      } catch (RuntimeException | Error e) {
        started.close();
        throw e;
      }
      return started;
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

  /**
   * Waits until every node says {@code cluster_state:ok} with all 16,384 slots served. The
   * library's start returns once the slots are assigned, but a node that has not yet heard of the
   * others' slots answers {@code CLUSTERDOWN} for a moment: a service started then (seen in
   * RedisClusterIT on a clean clone) found the cluster down.
   */
  void awaitEveryNodeOk(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int port : ports) {
      String info = "";
      while (!(info.contains("cluster_state:ok") && info.contains("cluster_slots_ok:16384"))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "embedded Redis Cluster node :" + port + " not ok within " + timeout + ": " + info.replace("\r\n", ", "));
        }
        info = clusterInfo(port);
        if (!info.contains("cluster_state:ok")) {
          pause();
        }
      }
    }
  }

  private static String clusterInfo(int port) {
    try (RespConnection node = RespConnection.open(port, Duration.ofSeconds(2))) {
      return String.valueOf(node.call("CLUSTER", "INFO"));
    } catch (IOException e) {
      return "unreachable: " + e.getMessage();
    }
  }

  private static void pause() {
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the embedded Redis Cluster", e);
    }
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
