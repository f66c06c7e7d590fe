package io.refresher.testing;

import io.refresher.client.protocol.AccessProtocol;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Reports reads the way a reader in any language would, with nothing but {@code HINCRBY} and
 * {@code EXPIRE} on the access buckets of {@code docs/protocol.md}: every 100 ms it adds, for each
 * key, the reads of its configured rate.
 */
public final class AccessReporter implements AutoCloseable {

  private static final long TICK_MILLIS = 100;
  private static final String REPORT =
      "redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2]) return redis.call('EXPIRE', KEYS[1], ARGV[3])";

  private final RedissonClient redis;
  private final Map<String, Double> readsPerSecond = new ConcurrentHashMap<>();
  private final Map<String, Double> carry = new ConcurrentHashMap<>();
  private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor();

  public AccessReporter(RedissonClient redis) {
    this.redis = redis;
    thread.scheduleAtFixedRate(this::report, 0, TICK_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** From now on, reports {@code rate} reads per second of {@code key} (0 stops). */
  public void read(String key, double rate) {
    if (rate <= 0) {
      readsPerSecond.remove(key);
    } else {
      readsPerSecond.put(key, rate);
    }
  }

  public void stopAll() {
    readsPerSecond.clear();
  }

  /** Reports {@code count} reads of {@code key} once, now. */
  public void reportOnce(String key, long count) {
    write(key, count);
  }

  private void report() {
    for (Map.Entry<String, Double> entry : readsPerSecond.entrySet()) {
      double due = carry.getOrDefault(entry.getKey(), 0.0) + entry.getValue() * TICK_MILLIS / 1000.0;
      long whole = (long) due;
      carry.put(entry.getKey(), due - whole);
      if (whole > 0) {
        write(entry.getKey(), whole);
      }
    }
  }

  private void write(String key, long count) {
    String bucket =
        AccessProtocol.bucketKey(AccessProtocol.shardOf(key), AccessProtocol.secondOf(System.currentTimeMillis()));
    redis
        .getScript(StringCodec.INSTANCE)
        .eval(
            bucket,
            RScript.Mode.READ_WRITE,
            REPORT,
            RScript.ReturnType.INTEGER,
            List.of(bucket),
            key,
            Long.toString(count),
            Integer.toString(AccessProtocol.BUCKET_TTL_SECONDS));
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
