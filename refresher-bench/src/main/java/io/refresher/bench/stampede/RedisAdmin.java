package io.refresher.bench.stampede;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/** The phase's own housekeeping connection to Redis: empties its database, reads INFO commandstats. */
final class RedisAdmin implements AutoCloseable {


  private final RedissonClient redisson;

  RedisAdmin(String redisUrl, int database) {
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    config.setThreads(1);
    config.setNettyThreads(1);
    config.useSingleServer().setAddress(redisUrl).setDatabase(database).setConnectionPoolSize(2).setConnectionMinimumIdleSize(1)
        .setSubscriptionConnectionPoolSize(1).setSubscriptionConnectionMinimumIdleSize(0);
    redisson = Redisson.create(config);
  }

  /** FLUSHDB of the phase's database (never the others'). */
  void flushDatabase() {
    redisson.getKeys().flushdb();
  }

  /** Calls per command since Redis started (script-internal ones included), for the whole server. */
  Map<String, Long> commandStats() {
    return io.refresher.bench.RedisCommandStats.of(redisson).calls();
  }

  static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> delta = new TreeMap<>();
    after.forEach(
        (name, count) -> {
          long d = count - before.getOrDefault(name, 0L);
          if (d != 0) {
            delta.put(name, d);
          }
        });
    return delta;
  }

  @Override
  public void close() {
    redisson.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
