package io.refresher.redis;

import io.refresher.access.AccessCounts;
import io.refresher.client.protocol.AccessProtocol;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.redisson.api.RBatch;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;

/** Reads and deletes the access buckets applications write ({@link AccessProtocol}). */
public final class RedisAccessCounts implements AccessCounts {

  private final RedissonClient redisson;

  public RedisAccessCounts(RedissonClient redisson) {
    this.redisson = redisson;
  }

  @Override
  public Map<String, Long> read(long unixSecond) {
    return readAll(List.of(unixSecond)).get(unixSecond);
  }

  /**
   * All shards of all the seconds in one pipelined batch: one round trip however many seconds, and
   * all their decoded counts on the heap until it ends (the sampler asks for one at a time).
   */
  @Override
  public Map<Long, Map<String, Long>> readAll(List<Long> unixSeconds) {
    try {
      RBatch batch = redisson.createBatch();
      Map<Long, List<CompletionStage<Map<String, String>>>> pending = new LinkedHashMap<>();
      for (long second : unixSeconds) {
        List<CompletionStage<Map<String, String>>> shards = new ArrayList<>(AccessProtocol.SHARDS);
        for (int shard = 0; shard < AccessProtocol.SHARDS; shard++) {
          shards.add(
              batch.<String, String>getMap(AccessProtocol.bucketKey(shard, second), StringCodec.INSTANCE)
                  .readAllMapAsync());
        }
        pending.put(second, shards);
      }
      if (pending.isEmpty()) {
        return Map.of();
      }
      batch.execute();
      Map<Long, Map<String, Long>> all = new LinkedHashMap<>();
      pending.forEach(
          (second, shards) -> {
            Map<String, Long> total = new HashMap<>();
            for (CompletionStage<Map<String, String>> shard : shards) {
              shard.toCompletableFuture().join().forEach((key, count) -> total.merge(key, parse(count), Long::sum));
            }
            all.put(second, total);
          });
      return all;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("reading access counts", e);
    } catch (CompletionException e) {
      throw RedisCacheStore.unavailable("reading access counts", e.getCause() == null ? e : e.getCause());
    }
  }

  @Override
  public void delete(Collection<Long> unixSeconds) {
    if (unixSeconds.isEmpty()) {
      return;
    }
    try {
      RBatch batch = redisson.createBatch();
      for (long second : unixSeconds) {
        for (int shard = 0; shard < AccessProtocol.SHARDS; shard++) {
          batch.getBucket(AccessProtocol.bucketKey(shard, second), StringCodec.INSTANCE).deleteAsync();
        }
      }
      batch.execute();
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("deleting consumed access counts", e);
    }
  }

  /** A count as a reader wrote it; tolerant of HINCRBYFLOAT's "12" or "12.0". */
  private static long parse(String count) {
    try {
      return Long.parseLong(count);
    } catch (NumberFormatException e) {
      try {
        return Math.round(Double.parseDouble(count));
      } catch (NumberFormatException notANumber) {
        return 0; // a reader wrote garbage; it is not worth failing the sampling for
      }
    }
  }
}
