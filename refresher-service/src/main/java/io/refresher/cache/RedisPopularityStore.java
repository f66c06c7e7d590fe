package io.refresher.cache;

import io.refresher.access.PopularityStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.redisson.api.RBatch;
import org.redisson.api.RScoredSortedSet;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.ScoredEntry;

/**
 * Popularity scores in a Redis sorted set ({@code refresher:popularity:{refresher-hot}}, member =
 * key, score = forward-decay score) and its state in a hash beside it ({@code landmark} ms, {@code
 * cursor} unix second).
 */
public final class RedisPopularityStore implements PopularityStore {

  private static final int CHUNK = 5000;

  /** KEYS: state. ARGV: landmark, cursor. Sets the missing fields; returns both. */
  private static final String INITIALISE =
      """
      redis.call('HSETNX', KEYS[1], 'landmark', ARGV[1])
      redis.call('HSETNX', KEYS[1], 'cursor', ARGV[2])
      return redis.call('HMGET', KEYS[1], 'landmark', 'cursor')
      """;

  /**
   * KEYS: scores, state. ARGV: cursor second (or empty), then key, increment pairs. One script per
   * few thousand keys instead of a command per key: the sampler folds in every key read in the
   * consumed seconds.
   */
  private static final String ADD =
      """
      for i = 2, #ARGV, 2 do
        redis.call('ZINCRBY', KEYS[1], ARGV[i + 1], ARGV[i])
      end
      if ARGV[1] ~= '' then
        redis.call('HSET', KEYS[2], 'cursor', ARGV[1])
      end
      return 1
      """;

  /** KEYS: scores, state. ARGV: factor, landmark. Rescales every score and moves the landmark. */
  private static final String RESCALE =
      """
      if redis.call('EXISTS', KEYS[1]) == 1 then
        redis.call('ZUNIONSTORE', KEYS[1], 1, KEYS[1], 'WEIGHTS', ARGV[1])
      end
      redis.call('HSET', KEYS[2], 'landmark', ARGV[2])
      return 1
      """;

  private final RedissonClient redisson;

  public RedisPopularityStore(RedissonClient redisson) {
    this.redisson = redisson;
  }

  private RScoredSortedSet<String> scores() {
    return redisson.getScoredSortedSet(HotKeyNames.POPULARITY, StringCodec.INSTANCE);
  }

  @Override
  public Optional<State> state() {
    try {
      Map<String, String> fields =
          redisson.<String, String>getMap(HotKeyNames.POPULARITY_STATE, StringCodec.INSTANCE).readAllMap();
      if (!fields.containsKey("landmark") || !fields.containsKey("cursor")) {
        return Optional.empty();
      }
      return Optional.of(new State(Long.parseLong(fields.get("landmark")), Long.parseLong(fields.get("cursor"))));
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("reading popularity state", e);
    }
  }

  @Override
  public State initialise(State state) {
    try {
      List<Object> fields =
          redisson
              .getScript(StringCodec.INSTANCE)
              .eval(
                  HotKeyNames.POPULARITY_STATE,
                  RScript.Mode.READ_WRITE,
                  INITIALISE,
                  RScript.ReturnType.MULTI,
                  List.of(HotKeyNames.POPULARITY_STATE),
                  Long.toString(state.landmarkMillis()),
                  Long.toString(state.cursorSecond()));
      return new State(Long.parseLong((String) fields.get(0)), Long.parseLong((String) fields.get(1)));
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("initialising popularity state", e);
    }
  }

  @Override
  public void add(Map<String, Double> increments, long cursorSecond) {
    try {
      List<Map.Entry<String, Double>> entries = new ArrayList<>(increments.entrySet());
      RScript script = redisson.getScript(StringCodec.INSTANCE);
      int from = 0;
      do {
        List<Map.Entry<String, Double>> chunk = entries.subList(from, Math.min(entries.size(), from + CHUNK));
        // The cursor moves with the last chunk: a failure before it re-reads the seconds.
        boolean last = from + CHUNK >= entries.size();
        Object[] args = new Object[1 + 2 * chunk.size()];
        args[0] = last ? Long.toString(cursorSecond) : "";
        int i = 1;
        for (Map.Entry<String, Double> entry : chunk) {
          args[i++] = entry.getKey();
          args[i++] = Double.toString(entry.getValue());
        }
        script.eval(
            HotKeyNames.POPULARITY,
            RScript.Mode.READ_WRITE,
            ADD,
            RScript.ReturnType.INTEGER,
            List.of(HotKeyNames.POPULARITY, HotKeyNames.POPULARITY_STATE),
            args);
        from += CHUNK;
      } while (from < entries.size());
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("adding to popularity", e);
    }
  }

  @Override
  public void rescale(double factor, long landmarkMillis) {
    try {
      redisson
          .getScript(StringCodec.INSTANCE)
          .eval(
              HotKeyNames.POPULARITY,
              RScript.Mode.READ_WRITE,
              RESCALE,
              RScript.ReturnType.INTEGER,
              List.of(HotKeyNames.POPULARITY, HotKeyNames.POPULARITY_STATE),
              Double.toString(factor),
              Long.toString(landmarkMillis));
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("rescaling popularity", e);
    }
  }

  @Override
  public void prune(double minScore, int maxEntries) {
    try {
      RBatch batch = redisson.createBatch();
      var set = batch.<String>getScoredSortedSet(HotKeyNames.POPULARITY, StringCodec.INSTANCE);
      set.removeRangeByScoreAsync(Double.NEGATIVE_INFINITY, true, minScore, false);
      set.removeRangeByRankAsync(0, -(maxEntries + 1));
      batch.execute();
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("pruning popularity", e);
    }
  }

  @Override
  public List<Scored> descending(double minScore, int offset, int limit) {
    try {
      Collection<ScoredEntry<String>> entries =
          scores().entryRangeReversed(minScore, true, Double.POSITIVE_INFINITY, true, offset, limit);
      List<Scored> page = new ArrayList<>(entries.size());
      for (ScoredEntry<String> entry : entries) {
        page.add(new Scored(entry.getValue(), entry.getScore()));
      }
      return page;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("ranking popularity", e);
    }
  }

  @Override
  public Map<String, Double> scores(Collection<String> keys) {
    if (keys.isEmpty()) {
      return Map.of();
    }
    try {
      List<String> ordered = new ArrayList<>(keys);
      Map<String, Double> found = new HashMap<>(ordered.size() * 2);
      for (int from = 0; from < ordered.size(); from += CHUNK) {
        List<String> chunk = ordered.subList(from, Math.min(ordered.size(), from + CHUNK));
        List<Double> values = scores().getScore(chunk);
        for (int i = 0; i < chunk.size(); i++) {
          if (values.get(i) != null) {
            found.put(chunk.get(i), values.get(i));
          }
        }
      }
      return found;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("reading popularity scores", e);
    }
  }

  @Override
  public long size() {
    try {
      return scores().size();
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("counting popularity", e);
    }
  }

  @Override
  public void raise(Map<String, Double> raised) {
    try {
      List<Map.Entry<String, Double>> entries = new ArrayList<>(raised.entrySet());
      for (int from = 0; from < entries.size(); from += CHUNK) {
        Map<String, Double> chunk = new HashMap<>();
        entries.subList(from, Math.min(entries.size(), from + CHUNK)).forEach(e -> chunk.put(e.getKey(), e.getValue()));
        // ZADD GT: a key read since the loss keeps its higher score.
        scores().addAllIfGreater(chunk);
      }
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("restoring popularity", e);
    }
  }
}
