package io.refresher.client.redisson;

import io.refresher.client.driver.RedisDriver;
import io.refresher.client.driver.UrlDriverProvider;
import java.util.Locale;
import org.redisson.Redisson;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Connects a Redisson client of its own for {@code RefresherClient.builder(String)}: a single
 * server ({@code redis://}, {@code rediss://}); a Redis Cluster ({@code redis-cluster://} or
 * {@code rediss-cluster://} with one configuration endpoint or several seeds, or several {@code
 * redis://} seeds separated by commas); a primary behind Sentinel ({@link SentinelUrl}).
 */
public final class RedissonUrlDriverProvider implements UrlDriverProvider {

  private static final String CLUSTER = "redis-cluster://";
  private static final String CLUSTER_TLS = "rediss-cluster://";

  @Override
  public String name() {
    return "Redisson";
  }

  @Override
  public RedisDriver connect(String redisUrl) {
    return RedissonDriver.owning(Redisson.create(configFor(redisUrl)));
  }

  /** The Redisson configuration a URL stands for. */
  static Config configFor(String redisUrl) {
    Config config = new Config();
    // Values are plain strings that any application can GET: never Redisson's default codec.
    config.setCodec(StringCodec.INSTANCE);
    String url = redisUrl.trim();
    String lower = url.toLowerCase(Locale.ROOT);
    if (SentinelUrl.isSentinel(url)) {
      SentinelUrl.parse(url).applyTo(config);
    } else if (lower.startsWith(CLUSTER) || lower.startsWith(CLUSTER_TLS)) {
      // A managed cluster often gives one configuration endpoint: a cluster is said, not guessed.
      String scheme = lower.startsWith(CLUSTER_TLS) ? "rediss://" : "redis://";
      String nodes = url.substring(lower.startsWith(CLUSTER_TLS) ? CLUSTER_TLS.length() : CLUSTER.length());
      var cluster = config.useClusterServers();
      for (String node : nodes.split(",")) {
        if (node.isBlank()) {
          throw new IllegalArgumentException("a cluster URL names at least one host:port, was " + url);
        }
        cluster.addNodeAddress(scheme + node.trim());
      }
    } else if (url.contains(",")) {
      // Several addresses: seed nodes of a Redis Cluster, as the service's REFRESHER_REDIS_URL.
      var cluster = config.useClusterServers();
      for (String node : url.split(",")) {
        cluster.addNodeAddress(node.trim());
      }
    } else {
      config.useSingleServer().setAddress(url);
    }
    return config;
  }
}
