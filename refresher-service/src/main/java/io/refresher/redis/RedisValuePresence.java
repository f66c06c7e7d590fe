package io.refresher.redis;

import io.refresher.client.protocol.CacheKeys;
import io.refresher.prewarm.PrewarmPorts.ValuePresence;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.redisson.api.RBatch;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;

/** Whether values are in Redis: {@code EXISTS} of each key and {@code HEXISTS} of its metadata's error, pipelined. */
public final class RedisValuePresence implements ValuePresence {

  private final RedissonClient redisson;

  public RedisValuePresence(RedissonClient redisson) {
    this.redisson = redisson;
  }

  @Override
  public Map<String, Long> logicalExpiry(Collection<String> keys) {
    if (keys.isEmpty()) {
      return Map.of();
    }
    try {
      RBatch batch = redisson.createBatch();
      Map<String, CompletionStage<String>> reads = new LinkedHashMap<>();
      for (String key : keys) {
        reads.put(key, batch.<String, String>getMap(CacheKeys.metaKey(key), StringCodec.INSTANCE).getAsync("expiresAt"));
      }
      batch.execute();
      Map<String, Long> result = new LinkedHashMap<>();
      reads.forEach(
          (key, read) -> {
            String value = read.toCompletableFuture().join();
            if (value != null) {
              result.put(key, Long.parseLong(value));
            }
          });
      return result;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("logical expiry of values", e);
    } catch (CompletionException e) {
      throw RedisCacheStore.unavailable("logical expiry of values", e.getCause() == null ? e : e.getCause());
    }
  }

  @Override
  public Map<String, Presence> presence(Collection<String> keys) {
    if (keys.isEmpty()) {
      return Map.of();
    }
    try {
      RBatch batch = redisson.createBatch();
      List<CompletionStage<Boolean>> exists = new ArrayList<>(keys.size());
      List<CompletionStage<Boolean>> failed = new ArrayList<>(keys.size());
      for (String key : keys) {
        exists.add(batch.getBucket(key, StringCodec.INSTANCE).isExistsAsync());
        failed.add(batch.<String, String>getMap(CacheKeys.metaKey(key), StringCodec.INSTANCE).containsKeyAsync("error"));
      }
      batch.execute();
      Map<String, Presence> result = new LinkedHashMap<>();
      int i = 0;
      for (String key : keys) {
        boolean present = exists.get(i).toCompletableFuture().join();
        boolean failing = failed.get(i).toCompletableFuture().join();
        result.put(key, present ? Presence.PRESENT : failing ? Presence.FAILED : Presence.ABSENT);
        i++;
      }
      return result;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("presence of values", e);
    } catch (CompletionException e) {
      throw RedisCacheStore.unavailable("presence of values", e.getCause() == null ? e : e.getCause());
    }
  }
}
