package io.refresher.testing;

import io.refresher.embedded.EmbeddedRedisCluster;
import java.util.Map;

/**
 * What the Python and Node clients' suites run on: a Redis of their own and a three-master Redis
 * Cluster, named to them by the environment variables they read.
 */
public final class ClientSuiteRedis implements AutoCloseable {

  private final TestRedis redis;
  private final EmbeddedRedisCluster cluster;

  private ClientSuiteRedis(TestRedis redis, EmbeddedRedisCluster cluster) {
    this.redis = redis;
    this.cluster = cluster;
  }

  public static ClientSuiteRedis start() {
    TestRedis redis = RealServers.newRedis();
    try {
      return new ClientSuiteRedis(redis, EmbeddedRedisCluster.start());
    } catch (RuntimeException e) {
      redis.close();
      throw e;
    }
  }

  /** {@code REFRESHER_TEST_REDIS_URL} and {@code REFRESHER_TEST_REDIS_CLUSTER_URL}. */
  public Map<String, String> environment() {
    return Map.of(
        "REFRESHER_TEST_REDIS_URL", redis.url(),
        "REFRESHER_TEST_REDIS_CLUSTER_URL", "redis://127.0.0.1:" + cluster.ports().get(0));
  }

  @Override
  public void close() {
    try {
      redis.close();
    } finally {
      cluster.close();
    }
  }
}
