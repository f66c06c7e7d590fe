package io.refresher.redis;

import io.refresher.access.PopularityStore;
import io.refresher.client.protocol.AccessProtocol;
import io.refresher.registry.KeyRules;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.redisson.api.RScoredSortedSet;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.ScoredEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Popularity in one Redis sorted set, {@code refresher:popularity:{refresher-hot}}: member = key,
 * score = forward-decay score, and reserved members holding the state: {@code refresher:landmark}
 * and {@code refresher:cursor}, and while a consumption of several script calls runs, {@code
 * refresher:consuming:first} and {@code refresher:consuming:last} (each with score {@code -1 -
 * value}: landmark in ms, the others unix seconds). Real scores are never negative, so every range
 * query from 0 up leaves the state out. Keys starting with {@code refresher:} are reserved (no
 * registration or template can cover one) and are never counted.
 *
 * <p>Why one key: scores are meaningless without their landmark (read against another, every rate
 * is off by {@code exp(λ Δ)}, up to e^30), and folded in twice without their cursor; under memory
 * pressure Redis evicts whole keys. Scores and state kept apart could part; in one key they are
 * evicted together or not at all.
 *
 * <p>A consumption of more keys than one script call takes ({@value #CHUNK}) is marked in the
 * scores key (its seconds) and keeps a record beside it, {@code
 * refresher:popularity:{refresher-hot}:consuming}, of the increment added so far per key. Every
 * chunk checks landmark and cursor and adds only what exceeds the record, so a chunk sent again (a
 * retry after a failure part-way, a second sampler on the same seconds) adds nothing twice. The
 * last chunk moves the cursor, clears the mark and deletes the record, atomically. If the record is
 * gone while the mark is not (evicted, or expired after {@link #CONSUMING_TTL_MILLIS} without a
 * write), what was added cannot be told: the rest of those seconds is given up (the cursor moves
 * past them) rather than counted twice. All keys share the hash tag {@code {refresher-hot}}: one
 * cluster slot.
 */
public final class RedisPopularityStore implements PopularityStore {

  private static final Logger LOG = LoggerFactory.getLogger(RedisPopularityStore.class);
  private static final int CHUNK = 5000;
  /** How long an unfinished consumption's record outlives its last write (two bucket lifetimes). */
  static final long CONSUMING_TTL_MILLIS = 2_000L * AccessProtocol.BUCKET_TTL_SECONDS;
  private static final long ADDED = 1;
  private static final long GIVEN_UP = 2;

  /** Shared by the scripts: the reserved members and how their values are kept. */
  private static final String PROLOGUE =
      """
      local LANDMARK, CURSOR = 'refresher:landmark', 'refresher:cursor'
      local FIRST, LAST = 'refresher:consuming:first', 'refresher:consuming:last'
      local function stored(name)
        local score = redis.call('ZSCORE', KEYS[1], name)
        if score then return -1 - tonumber(score) end
        return nil
      end
      local function encoded(value)
        return string.format('%d', -1 - tonumber(value))
      end
      local function text(value)
        if value then return string.format('%d', value) end
        return ''
      end
      local function reserved(key)
        return string.sub(key, 1, 10) == 'refresher:'
      end
      """;

  /** KEYS: scores. Returns landmark, cursor, and the seconds of an unfinished consumption ('' where absent). */
  private static final String STATE =
      PROLOGUE
          + """
          return {text(stored(LANDMARK)), text(stored(CURSOR)), text(stored(FIRST)), text(stored(LAST))}
          """;

  /**
   * KEYS: scores, consuming record, the state hash of an older version. ARGV: landmark, cursor.
   * Sets the missing state; returns landmark, cursor and how many scores were dropped for lack of
   * a landmark.
   */
  private static final String INITIALISE =
      PROLOGUE
          + """
          local dropped = 0
          if not stored(LANDMARK) then
            local legacy = redis.call('HMGET', KEYS[3], 'landmark', 'cursor')
            if legacy[1] and legacy[2] then
              -- kept beside the scores by an older version: theirs, adopted
              redis.call('ZADD', KEYS[1], encoded(legacy[1]), LANDMARK, encoded(legacy[2]), CURSOR)
            else
              -- scores without their landmark cannot be read as rates: dropped, never read against now
              dropped = redis.call('ZCOUNT', KEYS[1], 0, '+inf')
              redis.call('DEL', KEYS[1], KEYS[2])
              redis.call('ZADD', KEYS[1], encoded(ARGV[1]), LANDMARK, encoded(ARGV[2]), CURSOR)
            end
            redis.call('DEL', KEYS[3])
          elseif not stored(CURSOR) then
            redis.call('ZADD', KEYS[1], encoded(ARGV[2]), CURSOR)
          end
          return {text(stored(LANDMARK)), text(stored(CURSOR)), dropped}
          """;

  /**
   * KEYS: scores, consuming record. ARGV: landmark and cursor the increments were computed on, the
   * first and last second, whether this chunk may start the consumption ('1': the first chunk of
   * one not started yet), whether it is the last chunk ('1'), the record's TTL ms, then key,
   * increment pairs. Returns 1 if added, 0 if refused, 2 if the consumption was given up.
   */
  private static final String ADD =
      PROLOGUE
          + """
          if stored(LANDMARK) ~= tonumber(ARGV[1]) or stored(CURSOR) ~= tonumber(ARGV[2]) then
            return 0   -- consumed by another sampler, rescaled, or lost: nothing here is current
          end
          local first, last = stored(FIRST), stored(LAST)
          local recorded
          if first then
            if first ~= tonumber(ARGV[3]) or last ~= tonumber(ARGV[4]) then
              return 0   -- another sampler is consuming other seconds on top of this cursor
            end
            if redis.call('EXISTS', KEYS[2]) == 0 then
              -- what was added is no longer known (the record was evicted or expired): the rest of
              -- these seconds is given up rather than possibly counted twice
              redis.call('ZREM', KEYS[1], FIRST, LAST)
              redis.call('ZADD', KEYS[1], encoded(ARGV[4]), CURSOR)
              return 2
            end
            recorded = true
          elseif ARGV[5] ~= '1' then
            return 0   -- this consumption's mark is gone, and with it the cursor it was on
          elseif ARGV[6] == '1' then
            recorded = false   -- the whole consumption in this one call: atomic, nothing to record
          else
            redis.call('DEL', KEYS[2])   -- left by a consumption given up
            redis.call('ZADD', KEYS[1], encoded(ARGV[3]), FIRST, encoded(ARGV[4]), LAST)
            recorded = true
          end
          for i = 8, #ARGV, 2 do
            local key, increment = ARGV[i], ARGV[i + 1]
            if not reserved(key) then
              if not recorded then
                redis.call('ZINCRBY', KEYS[1], increment, key)
              else
                local added = redis.call('HGET', KEYS[2], key)
                if not added then
                  redis.call('ZINCRBY', KEYS[1], increment, key)
                  redis.call('HSET', KEYS[2], key, increment)
                elseif tonumber(increment) > tonumber(added) then
                  redis.call('ZINCRBY', KEYS[1], tonumber(increment) - tonumber(added), key)
                  redis.call('HSET', KEYS[2], key, increment)
                end
              end
            end
          end
          if ARGV[6] == '1' then
            redis.call('ZADD', KEYS[1], encoded(ARGV[4]), CURSOR)
            if recorded then
              redis.call('ZREM', KEYS[1], FIRST, LAST)
              redis.call('UNLINK', KEYS[2])
            end
          elseif recorded then
            redis.call('PEXPIRE', KEYS[2], ARGV[7])
          end
          return 1
          """;

  /**
   * KEYS: scores. ARGV: landmark expected, factor, new landmark. Rescales every score and moves the
   * landmark, unless the landmark moved or a consumption is unfinished.
   */
  private static final String RESCALE =
      PROLOGUE
          + """
          if stored(LANDMARK) ~= tonumber(ARGV[1]) or stored(FIRST) then
            return 0
          end
          local cursor = redis.call('ZSCORE', KEYS[1], CURSOR)
          redis.call('ZUNIONSTORE', KEYS[1], 1, KEYS[1], 'WEIGHTS', ARGV[2])
          redis.call('ZADD', KEYS[1], encoded(ARGV[3]), LANDMARK)
          if cursor then
            redis.call('ZADD', KEYS[1], cursor, CURSOR)
          end
          return 1
          """;

  /** KEYS: scores. ARGV: min score, max entries. The reserved members (negative) are kept. */
  private static final String PRUNE =
      """
      redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, '(' .. ARGV[1])
      local reserved = redis.call('ZCOUNT', KEYS[1], '-inf', '(0')
      redis.call('ZREMRANGEBYRANK', KEYS[1], reserved, -1 - tonumber(ARGV[2]))
      return 1
      """;

  /** KEYS: scores. ARGV: landmark, then key, score pairs. ZADD GT: a key read since keeps its higher score. */
  private static final String RAISE =
      PROLOGUE
          + """
          if stored(LANDMARK) ~= tonumber(ARGV[1]) then
            return 0
          end
          for i = 2, #ARGV, 2 do
            if not reserved(ARGV[i]) then
              redis.call('ZADD', KEYS[1], 'GT', ARGV[i + 1], ARGV[i])
            end
          end
          return 1
          """;

  private final RedissonClient redisson;

  public RedisPopularityStore(RedissonClient redisson) {
    this.redisson = redisson;
  }

  private RScoredSortedSet<String> scores() {
    return redisson.getScoredSortedSet(HotKeyNames.POPULARITY, StringCodec.INSTANCE);
  }

  private <T> T eval(String script, RScript.ReturnType type, List<Object> keys, Object... args) {
    return redisson.getScript(StringCodec.INSTANCE).eval(HotKeyNames.POPULARITY, RScript.Mode.READ_WRITE, script, type, keys, args);
  }

  @Override
  public Optional<State> state() {
    try {
      List<Object> fields = eval(STATE, RScript.ReturnType.MULTI, List.of(HotKeyNames.POPULARITY));
      if (((String) fields.get(0)).isEmpty() || ((String) fields.get(1)).isEmpty()) {
        return Optional.empty();
      }
      Optional<Seconds> consuming =
          ((String) fields.get(2)).isEmpty() || ((String) fields.get(3)).isEmpty()
              ? Optional.empty()
              : Optional.of(new Seconds(Long.parseLong((String) fields.get(2)), Long.parseLong((String) fields.get(3))));
      return Optional.of(new State(Long.parseLong((String) fields.get(0)), Long.parseLong((String) fields.get(1)), consuming));
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("reading popularity state", e);
    }
  }

  @Override
  public State initialise(State state) {
    try {
      List<Object> fields =
          eval(
              INITIALISE,
              RScript.ReturnType.MULTI,
              List.of(HotKeyNames.POPULARITY, HotKeyNames.POPULARITY_CONSUMING, HotKeyNames.LEGACY_POPULARITY_STATE),
              Long.toString(state.landmarkMillis()),
              Long.toString(state.cursorSecond()));
      long dropped = (Long) fields.get(2);
      if (dropped > 0) {
        LOG.warn(
            "popularity of {} keys dropped: their landmark was missing, so their rates could not be read (they start again from the reads)",
            dropped);
      }
      return new State(Long.parseLong((String) fields.get(0)), Long.parseLong((String) fields.get(1)));
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("initialising popularity state", e);
    }
  }

  @Override
  public boolean add(State on, Seconds seconds, Map<String, Double> increments) {
    try {
      List<Map.Entry<String, Double>> entries = new ArrayList<>(increments.entrySet());
      int from = 0;
      do {
        List<Map.Entry<String, Double>> chunk = entries.subList(from, Math.min(entries.size(), from + CHUNK));
        // Only a new consumption's first chunk may start one; a resumed one, or a later chunk,
        // must find its record.
        boolean mayStart = from == 0 && on.consuming().isEmpty();
        boolean last = from + CHUNK >= entries.size();
        Object[] args = new Object[7 + 2 * chunk.size()];
        args[0] = Long.toString(on.landmarkMillis());
        args[1] = Long.toString(on.cursorSecond());
        args[2] = Long.toString(seconds.first());
        args[3] = Long.toString(seconds.last());
        args[4] = mayStart ? "1" : "0";
        args[5] = last ? "1" : "0";
        args[6] = Long.toString(CONSUMING_TTL_MILLIS);
        int i = 7;
        for (Map.Entry<String, Double> entry : chunk) {
          args[i++] = entry.getKey();
          args[i++] = Double.toString(entry.getValue());
        }
        long outcome =
            eval(ADD, RScript.ReturnType.INTEGER, List.of(HotKeyNames.POPULARITY, HotKeyNames.POPULARITY_CONSUMING), args);
        if (outcome == GIVEN_UP) {
          LOG.warn(
              "access seconds {}..{}: the record of what their unfinished consumption had added was lost (evicted or expired);"
                  + " the reads not yet added are given up rather than risk counting some twice",
              seconds.first(),
              seconds.last());
        }
        if (outcome != ADDED) {
          return false;
        }
        from += CHUNK;
      } while (from < entries.size());
      return true;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("adding to popularity", e);
    }
  }

  @Override
  public boolean rescale(State on, double factor, long landmarkMillis) {
    try {
      Long rescaled =
          eval(
              RESCALE,
              RScript.ReturnType.INTEGER,
              List.of(HotKeyNames.POPULARITY),
              Long.toString(on.landmarkMillis()),
              Double.toString(factor),
              Long.toString(landmarkMillis));
      return rescaled == 1;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("rescaling popularity", e);
    }
  }

  @Override
  public void prune(double minScore, int maxEntries) {
    try {
      eval(
          PRUNE,
          RScript.ReturnType.INTEGER,
          List.of(HotKeyNames.POPULARITY),
          Double.toString(Math.max(0, minScore)),
          Integer.toString(maxEntries));
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("pruning popularity", e);
    }
  }

  @Override
  public List<Scored> descending(double minScore, int offset, int limit) {
    try {
      // From 0 up: the state's reserved members (negative) are never among them.
      Collection<ScoredEntry<String>> entries =
          scores().entryRangeReversed(Math.max(0, minScore), true, Double.POSITIVE_INFINITY, true, offset, limit);
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
    List<String> ordered = new ArrayList<>(keys.size());
    for (String key : keys) {
      if (!key.startsWith(KeyRules.RESERVED_PREFIX)) {
        ordered.add(key);
      }
    }
    if (ordered.isEmpty()) {
      return Map.of();
    }
    try {
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
      return scores().count(0, true, Double.POSITIVE_INFINITY, true);
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("counting popularity", e);
    }
  }

  @Override
  public boolean raise(long landmarkMillis, Map<String, Double> raised) {
    try {
      List<Map.Entry<String, Double>> entries = new ArrayList<>(raised.entrySet());
      for (int from = 0; from < entries.size(); from += CHUNK) {
        List<Map.Entry<String, Double>> chunk = entries.subList(from, Math.min(entries.size(), from + CHUNK));
        Object[] args = new Object[1 + 2 * chunk.size()];
        args[0] = Long.toString(landmarkMillis);
        int i = 1;
        for (Map.Entry<String, Double> entry : chunk) {
          args[i++] = entry.getKey();
          args[i++] = Double.toString(entry.getValue());
        }
        Long done = eval(RAISE, RScript.ReturnType.INTEGER, List.of(HotKeyNames.POPULARITY), args);
        if (done == 0) {
          return false;
        }
      }
      return true;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("restoring popularity", e);
    }
  }
}
