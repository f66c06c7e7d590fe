package io.refresher.client;

import io.refresher.client.protocol.AccessProtocol;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.api.options.KeysScanOptions;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.Time;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;

/** Connections to a test Redis, and what the tests read back from it. */
final class TestRedis {

  private TestRedis() {}

  /** A client that reads and writes plain strings, as applications do. */
  static RedissonClient connect(String url) {
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    config
        .useSingleServer()
        .setAddress(url)
        .setConnectionPoolSize(16)
        .setConnectionMinimumIdleSize(2)
        // Fail fast while a test has Redis stopped, instead of retrying for seconds.
        .setRetryAttempts(1)
        .setRetryDelay(new ConstantDelay(Duration.ofMillis(100)))
        .setTimeout(1000)
        .setConnectTimeout(1000);
    return Redisson.create(config);
  }

  /** Redis's clock ({@code TIME}), epoch ms: the clock the protocol's times are on. */
  static long redisMillis(RedissonClient redisson) {
    Time time = redisson.getRedisNodes(RedisNodes.SINGLE).getInstance().time();
    return time.getSeconds() * 1_000L + time.getMicroseconds() / 1_000L;
  }

  /** Reads per key, summed over all access buckets (all shards, all seconds): SCAN + HGETALL. */
  static Map<String, Long> accessCounts(RedissonClient redisson) {
    Map<String, Long> sums = new HashMap<>();
    redisson
        .getKeys()
        .getKeysStream(KeysScanOptions.defaults().pattern(AccessProtocol.PREFIX + "*").chunkSize(1000))
        .forEach(
            bucket ->
                redisson
                    .<String, String>getMap(bucket, StringCodec.INSTANCE)
                    .readAllMap()
                    .forEach((key, count) -> sums.merge(key, Long.parseLong(count), Long::sum)));
    return sums;
  }

  static long total(Map<String, Long> counts) {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }
}
