package io.refresher.bench.stampede;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RBucket;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * What a strategy is given, the same for all of them: its application's Redisson client and
 * source call, the TTL policy of the scenario, where to log its writes, its keys.
 */
record StrategyContext(
    StrategyKind kind,
    String run,
    RedissonClient redisson,
    SourceCall source,
    TtlPolicy ttl,
    WriteLog writes,
    SourceCost cost,
    int keys,
    int instances) {

  String key(int rank) {
    return run + ":" + kind.id() + ":" + rank;
  }

  static int rankOf(String key) {
    return Integer.parseInt(key.substring(key.lastIndexOf(':') + 1));
  }

  RBucket<String> bucket(String key) {
    return redisson.getBucket(key, StringCodec.INSTANCE);
  }

  /** Writes {@code value} with a TTL from the policy, and logs the write. */
  void writeWithTtl(int rank, String key, String value) {
    long ttlMillis = ttl.nextMillis();
    bucket(key).set(value, Duration.ofMillis(ttlMillis));
    writes.addNow(rank, ttlMillis);
  }

  /**
   * The warm-up write of every key, pipelined: value {@code valueOf(rank)}, expiring at {@code
   * expiresMicros[rank]} (or never, when {@code expiresMicros} is null; not written when it is 0).
   */
  void prefill(long writtenMicros, long[] expiresMicros, java.util.function.IntFunction<String> valueOf) {
    RBatch batch = redisson.createBatch(BatchOptions.defaults());
    int pending = 0;
    for (int rank = 1; rank <= keys; rank++) {
      if (expiresMicros != null && expiresMicros[rank] == 0) {
        continue; // absent at the start, as a cache-aside tail has some keys
      }
      String value = valueOf.apply(rank);
      if (expiresMicros == null) {
        batch.getBucket(key(rank), StringCodec.INSTANCE).setAsync(value);
      } else {
        long ttlMillis = Math.max(1, (expiresMicros[rank] - WriteLog.nowMicros()) / 1_000);
        batch.getBucket(key(rank), StringCodec.INSTANCE).setAsync(value, Duration.ofMillis(ttlMillis));
        writes.add(rank, writtenMicros, expiresMicros[rank]);
      }
      if (++pending == 1_000) {
        batch.execute();
        batch = redisson.createBatch(BatchOptions.defaults());
        pending = 0;
      }
    }
    if (pending > 0) {
      batch.execute();
    }
  }

  /** The ranks 1..keys. */
  List<Integer> ranks() {
    List<Integer> ranks = new ArrayList<>(keys);
    for (int rank = 1; rank <= keys; rank++) {
      ranks.add(rank);
    }
    return ranks;
  }
}
