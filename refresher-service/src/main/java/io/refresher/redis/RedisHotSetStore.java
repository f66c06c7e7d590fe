package io.refresher.redis;

import io.refresher.access.HotSetStore;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.redisson.api.RBatch;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.ScoredEntry;

/** The hot set in a Redis sorted set ({@code refresher:hot:{refresher-hot}}, score = last-hot ms). */
public final class RedisHotSetStore implements HotSetStore {

  private final RedisReachability reachability;
  private final RedissonClient redisson;

  public RedisHotSetStore(RedissonClient redisson) {
    this(redisson, RedisReachability.assumed());
  }

  /** @param reachability while Redis is known to be unreachable, calls fail at once */
  public RedisHotSetStore(RedissonClient redisson, RedisReachability reachability) {
    this.reachability = reachability;
    this.redisson = redisson;
  }

  @Override
  public Map<String, Long> all() {
    reachability.require("RedisHotSetStore.all");
    try {
      Collection<ScoredEntry<String>> entries =
          redisson.<String>getScoredSortedSet(HotKeyNames.HOT, StringCodec.INSTANCE).entryRange(0, -1);
      Map<String, Long> hot = new HashMap<>(entries.size() * 2);
      for (ScoredEntry<String> entry : entries) {
        hot.put(entry.getValue(), entry.getScore().longValue());
      }
      return hot;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("reading the hot set", e);
    }
  }

  @Override
  public void update(Map<String, Long> lastHotAt, Collection<String> removed) {
    reachability.require("RedisHotSetStore.update");
    if (lastHotAt.isEmpty() && removed.isEmpty()) {
      return;
    }
    try {
      RBatch batch = redisson.createBatch();
      var set = batch.<String>getScoredSortedSet(HotKeyNames.HOT, StringCodec.INSTANCE);
      if (!lastHotAt.isEmpty()) {
        Map<String, Double> scores = new HashMap<>(lastHotAt.size() * 2);
        lastHotAt.forEach((key, at) -> scores.put(key, at.doubleValue()));
        set.addAllAsync(scores);
      }
      if (!removed.isEmpty()) {
        set.removeAllAsync(removed);
      }
      batch.execute();
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("updating the hot set", e);
    }
  }
}
