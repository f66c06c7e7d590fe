package io.refresher.redis;

import io.refresher.access.UncoveredKey;
import io.refresher.access.UncoveredKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.ScoredEntry;

/**
 * The hottest uncovered keys in one sorted set beside the hot set ({@code
 * refresher:hot:{refresher-hot}:uncovered}, score: reads/s), replaced whole by each sampling with
 * one script, and expiring when no sampling replaces it.
 */
public final class RedisUncoveredKeys implements UncoveredKeys {

  /** KEYS: the set. ARGV: keep ms, then rate and key pairs. */
  static final String REPLACE =
      """
      redis.call('DEL', KEYS[1])
      for i = 2, #ARGV, 2 do
        redis.call('ZADD', KEYS[1], ARGV[i], ARGV[i + 1])
      end
      if #ARGV > 1 then
        redis.call('PEXPIRE', KEYS[1], ARGV[1])
      end
      return #ARGV - 1
      """;

  private final RedissonClient redisson;
  private final RedisReachability reachability;

  public RedisUncoveredKeys(RedissonClient redisson, RedisReachability reachability) {
    this.redisson = redisson;
    this.reachability = reachability;
  }

  @Override
  public void replace(List<UncoveredKey> keys, Duration keep) {
    reachability.require("RedisUncoveredKeys.replace");
    List<Object> args = new ArrayList<>(1 + 2 * keys.size());
    args.add(Long.toString(keep.toMillis()));
    for (UncoveredKey key : keys) {
      args.add(Double.toString(key.rate()));
      args.add(key.key());
    }
    try {
      redisson.getScript(StringCodec.INSTANCE)
          .eval(HotKeyNames.UNCOVERED, RScript.Mode.READ_WRITE, REPLACE, RScript.ReturnType.INTEGER, List.of(HotKeyNames.UNCOVERED), args.toArray());
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("RedisUncoveredKeys.replace", e);
    }
  }

  @Override
  public List<UncoveredKey> hottest(int limit) {
    reachability.require("RedisUncoveredKeys.hottest");
    try {
      List<UncoveredKey> keys = new ArrayList<>();
      for (ScoredEntry<String> entry :
          redisson.<String>getScoredSortedSet(HotKeyNames.UNCOVERED, StringCodec.INSTANCE).entryRangeReversed(0, limit - 1)) {
        keys.add(new UncoveredKey(entry.getValue(), entry.getScore()));
      }
      return keys;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("RedisUncoveredKeys.hottest", e);
    }
  }
}
