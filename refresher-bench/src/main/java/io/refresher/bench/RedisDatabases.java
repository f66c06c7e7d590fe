package io.refresher.bench;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The run's Redis holds one database per phase that must start empty: a phase's service would
 * otherwise find the keys, due entries and metadata another phase left (its keys have the same
 * names), and refresh them on its own schedule in the middle of the phase's measurement.
 */
public final class RedisDatabases {

  private RedisDatabases() {}

  /** Empties the database of {@code redis://host:port/db}. */
  public static void flush(String redisUrl) {
    Config config = new Config();
    int slash = redisUrl.lastIndexOf('/');
    config.useSingleServer().setAddress(redisUrl.substring(0, slash)).setDatabase(Integer.parseInt(redisUrl.substring(slash + 1)));
    RedissonClient redisson = Redisson.create(config);
    try {
      redisson.getKeys().flushdb();
    } finally {
      redisson.shutdown();
    }
  }
}
