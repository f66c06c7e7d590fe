package io.refresher.testing;

import io.refresher.embedded.EmbeddedRedisCluster;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

/** A real three-master Redis Cluster as a {@link TestRedis}, started once and stopped at JVM exit. */
public final class ClusterTestRedis {

  private ClusterTestRedis() {}

  /** Starts a cluster; the shutdown hook stops it after the services that use it. */
  public static EmbeddedRedisCluster startCluster() {
    EmbeddedRedisCluster cluster = EmbeddedRedisCluster.start();
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "embedded-redis-cluster-stop"));
    return cluster;
  }

  public static TestRedis of(EmbeddedRedisCluster cluster) {
    return new TestRedis() {
      @Override
      public String url() {
        return cluster.urls();
      }

      @Override
      public RedissonClient connect() {
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        var servers = config.useClusterServers().setReadMode(ReadMode.MASTER);
        cluster.ports().forEach(port -> servers.addNodeAddress("redis://127.0.0.1:" + port));
        return Redisson.create(config);
      }

      @Override
      public void loseData() {
        throw new UnsupportedOperationException("a cluster test loses the data of the nodes it chooses itself");
      }

      @Override
      public void close() {
        // The shutdown hook stops the cluster.
      }
    };
  }
}
