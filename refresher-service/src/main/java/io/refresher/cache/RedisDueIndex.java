package io.refresher.cache;

import io.refresher.prewarm.PrewarmPorts;
import io.refresher.refresh.ClaimLeases;
import io.refresher.refresh.DueIndex;
import java.util.HashSet;
import java.util.Set;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.redisson.api.BatchResult;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;

/**
 * The due index as sorted sets in Redis: member = key, score = due time (epoch ms). It is split
 * into {@code shards} sets ({@code refresher:due:{0}}, {@code refresher:due:{1}}, ...) so that on
 * Redis Cluster the load spreads over several nodes; a key's shard is fixed by its Java string
 * hash. Every operation touches all shards in one pipelined batch: one round trip.
 *
 * <p>The index is rebuilt from PostgreSQL when lost ({@link io.refresher.refresh.DueIndexReconciler}).
 */
public final class RedisDueIndex implements DueIndex, ClaimLeases, PrewarmPorts.RefillSchedule {

  public static final String PREFIX = "refresher:due:";

  /** KEYS: shard. ARGV: horizon, limit, lease-until. Returns member, score, member, score, ... */
  static final String CLAIM =
      """
      local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
      for i = 1, #due, 2 do
        redis.call('ZADD', KEYS[1], ARGV[3], due[i])
      end
      return due
      """;

  /**
   * KEYS: shard, its planned-times hash. ARGV: flag (XX, NX or LT), score, member, score, member...
   * Returns how many changed. A key that gets a new time starts a new plan: its first-planned time
   * is forgotten.
   */
  static final String ZADD_FLAGGED =
      """
      local changed = 0
      for i = 2, #ARGV, 2 do
        local moved = redis.call('ZADD', KEYS[1], ARGV[1], 'CH', ARGV[i], ARGV[i + 1])
        if moved == 1 then redis.call('HDEL', KEYS[2], ARGV[i + 1]) end
        changed = changed + moved
      end
      return changed
      """;

  /**
   * KEYS: shard, its planned-times hash. ARGV: horizon, limit, lease score. Claims like {@link
   * #CLAIM} and keeps each key's first planned time (HSETNX), so that a key claimed again after a
   * lost claim still reports when it was planned. Returns member, planned, member, planned, ...
   */
  static final String CLAIM_TAGGED =
      """
      local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
      local out = {}
      for i = 1, #due, 2 do
        redis.call('ZADD', KEYS[1], ARGV[3], due[i])
        redis.call('HSETNX', KEYS[2], due[i], due[i + 1])
        out[#out + 1] = due[i]
        out[#out + 1] = redis.call('HGET', KEYS[2], due[i])
      end
      return out
      """;

  /** KEYS: shard. ARGV: renewed score, member, expected score, ... Returns the members not renewed. */
  static final String RENEW =
      """
      local lost = {}
      for i = 2, #ARGV, 2 do
        local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
        if score and tonumber(score) == tonumber(ARGV[i + 1]) then
          redis.call('ZADD', KEYS[1], 'XX', ARGV[1], ARGV[i])
        else
          lost[#lost + 1] = ARGV[i]
        end
      end
      return lost
      """;

  /** KEYS: shard, its planned-times hash. ARGV: lease score. Returns member, planned, ... */
  static final String CLAIMED_WITH =
      """
      local claimed = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1])
      local out = {}
      for i = 1, #claimed do
        out[#out + 1] = claimed[i]
        out[#out + 1] = redis.call('HGET', KEYS[2], claimed[i]) or ARGV[1]
      end
      return out
      """;

  private final RedisReachability reachability;
  private final RedissonClient redisson;
  private final int shards;

  public RedisDueIndex(RedissonClient redisson, int shards) {
    this(redisson, shards, RedisReachability.assumed());
  }

  /** @param reachability while Redis is known to be unreachable, calls fail at once */
  public RedisDueIndex(RedissonClient redisson, int shards, RedisReachability reachability) {
    this.reachability = reachability;
    this.redisson = redisson;
    this.shards = shards;
  }

  static String shardKey(int shard) {
    return PREFIX + "{" + shard + "}";
  }

  /** Each shard's first-planned times of claimed keys (same slot as the shard). */
  static String plannedKey(int shard) {
    return PREFIX + "{" + shard + "}:planned";
  }

  int shardOf(String key) {
    return Math.floorMod(key.hashCode(), shards);
  }

  @Override
  public List<DueKey> claim(long horizonMillis, int limit, long leaseUntilMillis) {
    reachability.require("RedisDueIndex.claim");
    // Each shard is asked for its share, rounded up: a batch may hold up to shards - 1 keys more
    // than the limit, which keeps one round trip per claim.
    int perShard = Math.max(1, (limit + shards - 1) / shards);
    try {
      BatchResult<?> results =
          executeScripts(
              batch -> {
                for (int shard = 0; shard < shards; shard++) {
                  batch
                      .getScript(StringCodec.INSTANCE)
                      .evalAsync(
                          shardKey(shard),
                          RScript.Mode.READ_WRITE,
                          CLAIM,
                          RScript.ReturnType.MULTI,
                          List.<Object>of(shardKey(shard)),
                          Long.toString(horizonMillis),
                          Integer.toString(perShard),
                          Long.toString(leaseUntilMillis));
                }
              });
      List<DueKey> claimed = new ArrayList<>();
      for (Object result : results.getResponses()) {
        List<?> pairs = (List<?>) result;
        for (int i = 0; i + 1 < pairs.size(); i += 2) {
          claimed.add(new DueKey((String) pairs.get(i), (long) Double.parseDouble((String) pairs.get(i + 1))));
        }
      }
      claimed.sort((a, b) -> Long.compare(a.plannedAtMillis(), b.plannedAtMillis()));
      return claimed;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("claim of due keys", e);
    }
  }

  @Override
  public List<DueKey> claim(long horizonMillis, int limit, double leaseScore) {
    reachability.require("RedisDueIndex.claim");
    int perShard = Math.max(1, (limit + shards - 1) / shards);
    List<List<Object>> results =
        perShard(
            CLAIM_TAGGED,
            shard -> List.of(Long.toString(horizonMillis), Integer.toString(perShard), Double.toString(leaseScore)),
            "claim of due keys");
    List<DueKey> claimed = pairs(results);
    claimed.sort((a, b) -> Long.compare(a.plannedAtMillis(), b.plannedAtMillis()));
    return claimed;
  }

  @Override
  public Set<String> renew(Map<String, Double> expectedScores, double renewedScore) {
    reachability.require("RedisDueIndex.renew");
    if (expectedScores.isEmpty()) {
      return Set.of();
    }
    List<List<Object>> args = new ArrayList<>(shards);
    for (int shard = 0; shard < shards; shard++) {
      List<Object> list = new ArrayList<>();
      list.add(Double.toString(renewedScore));
      args.add(list);
    }
    expectedScores.forEach(
        (key, expected) -> {
          List<Object> shard = args.get(shardOf(key));
          shard.add(key);
          shard.add(Double.toString(expected));
        });
    Set<String> lost = new HashSet<>();
    try {
      BatchResult<?> results =
          executeScripts(
              batch -> {
                for (int shard = 0; shard < shards; shard++) {
                  if (args.get(shard).size() > 1) {
                    batch
                        .getScript(StringCodec.INSTANCE)
                        .evalAsync(
                            shardKey(shard), RScript.Mode.READ_WRITE, RENEW, RScript.ReturnType.MULTI,
                            List.<Object>of(shardKey(shard)), args.get(shard).toArray());
                  }
                }
              });
      for (Object result : results.getResponses()) {
        for (Object member : (List<?>) result) {
          lost.add((String) member);
        }
      }
      return lost;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("renewal of claims", e);
    }
  }

  @Override
  public List<DueKey> claimedWith(double leaseScore) {
    reachability.require("RedisDueIndex.claimedWith");
    return pairs(perShard(CLAIMED_WITH, shard -> List.of(Double.toString(leaseScore)), "lookup of a claim"));
  }

  private List<List<Object>> perShard(
      String script, java.util.function.IntFunction<List<Object>> argsOf, String what) {
    try {
      BatchResult<?> executed =
          executeScripts(
              batch -> {
                for (int shard = 0; shard < shards; shard++) {
                  batch
                      .getScript(StringCodec.INSTANCE)
                      .evalAsync(
                          shardKey(shard), RScript.Mode.READ_WRITE, script, RScript.ReturnType.MULTI,
                          List.<Object>of(shardKey(shard), plannedKey(shard)), argsOf.apply(shard).toArray());
                }
              });
      List<List<Object>> results = new ArrayList<>();
      for (Object result : executed.getResponses()) {
        @SuppressWarnings("unchecked")
        List<Object> list = (List<Object>) result;
        results.add(list);
      }
      return results;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable(what, e);
    }
  }

  private static List<DueKey> pairs(List<List<Object>> results) {
    List<DueKey> keys = new ArrayList<>();
    for (List<Object> pairs : results) {
      for (int i = 0; i + 1 < pairs.size(); i += 2) {
        keys.add(new DueKey((String) pairs.get(i), (long) Double.parseDouble((String) pairs.get(i + 1))));
      }
    }
    return keys;
  }

  /**
   * Fills a new batch and executes it; when Redis answers {@code NOSCRIPT}, loads this index's
   * scripts and executes a new batch once more. Redisson sends the scripts of a batch as {@code
   * EVALSHA} when its client-side cache says the node has them; after Redis restarted empty on the
   * same address that cache is wrong, and without this the dispatcher's claims failed for seconds
   * after a data loss, in the middle of the refill.
   */
  private BatchResult<?> executeScripts(java.util.function.Consumer<RBatch> fill) {
    RBatch batch = redisson.createBatch();
    fill.accept(batch);
    try {
      return batch.execute();
    } catch (RedisException e) {
      if (!String.valueOf(e.getMessage()).contains("NOSCRIPT")) {
        throw e;
      }
      RScript scripts = redisson.getScript(StringCodec.INSTANCE);
      for (String script : List.of(CLAIM, CLAIM_TAGGED, RENEW, CLAIMED_WITH, ZADD_FLAGGED)) {
        scripts.scriptLoad(script);
      }
      RBatch again = redisson.createBatch();
      fill.accept(again);
      return again.execute();
    }
  }

  @Override
  public void schedule(String key, long atMillis) {
    reachability.require("RedisDueIndex.schedule");
    try {
      RBatch batch = redisson.createBatch();
      batch.getScoredSortedSet(shardKey(shardOf(key)), StringCodec.INSTANCE).addAsync(atMillis, key);
      batch.getMap(plannedKey(shardOf(key)), StringCodec.INSTANCE).fastRemoveAsync(key);
      batch.execute();
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("scheduling of key '" + key + "'", e);
    }
  }

  @Override
  public void reschedule(Map<String, Long> atMillisByKey) {
    reachability.require("RedisDueIndex.reschedule");
    if (atMillisByKey.isEmpty()) {
      return;
    }
    List<List<Object>> args = newShardLists("XX");
    atMillisByKey.forEach(
        (key, at) -> {
          List<Object> shard = args.get(shardOf(key));
          shard.add(Long.toString(at));
          shard.add(key);
        });
    runFlagged(args, "rescheduling");
  }

  @Override
  public int addMissing(Collection<String> keys, long atMillis) {
    reachability.require("RedisDueIndex.addMissing");
    Map<String, Double> at = new java.util.HashMap<>(keys.size() * 2);
    keys.forEach(key -> at.put(key, (double) atMillis));
    return zaddFlagged("NX", at, "repair");
  }

  /** {@code ZADD LT}: added when missing, moved only to an earlier time. */
  @Override
  public int scheduleEarliest(Map<String, Double> dueAtMillis) {
    reachability.require("RedisDueIndex.scheduleEarliest");
    return zaddFlagged("LT", dueAtMillis, "refill");
  }

  /** {@code ZADD NX}, each key at its own time. */
  @Override
  public int scheduleIfMissing(Map<String, Double> dueAtMillis) {
    reachability.require("RedisDueIndex.scheduleIfMissing");
    return zaddFlagged("NX", dueAtMillis, "repair");
  }

  /** {@code ZADD <flag> CH} of each key at its time, one script per shard, one round trip. */
  private int zaddFlagged(String flag, Map<String, Double> atMillisByKey, String what) {
    if (atMillisByKey.isEmpty()) {
      return 0;
    }
    List<List<Object>> args = newShardLists(flag);
    atMillisByKey.forEach(
        (key, at) -> {
          List<Object> shard = args.get(shardOf(key));
          // Whole milliseconds as integers, as the index has always written them; ranks of a
          // refill carry fractions.
          shard.add(at == Math.rint(at) ? Long.toString(at.longValue()) : Double.toString(at));
          shard.add(key);
        });
    return runFlagged(args, what);
  }

  private List<List<Object>> newShardLists(String flag) {
    List<List<Object>> args = new ArrayList<>(shards);
    for (int shard = 0; shard < shards; shard++) {
      List<Object> list = new ArrayList<>();
      list.add(flag);
      args.add(list);
    }
    return args;
  }

  private int runFlagged(List<List<Object>> args, String what) {
    try {
      BatchResult<?> results =
          executeScripts(
              batch -> {
                for (int shard = 0; shard < shards; shard++) {
                  List<Object> shardArgs = args.get(shard);
                  if (shardArgs.size() > 1) {
                    batch
                        .getScript(StringCodec.INSTANCE)
                        .evalAsync(
                            shardKey(shard),
                            RScript.Mode.READ_WRITE,
                            ZADD_FLAGGED,
                            RScript.ReturnType.INTEGER,
                            List.<Object>of(shardKey(shard), plannedKey(shard)),
                            shardArgs.toArray());
                  }
                }
              });
      int changed = 0;
      for (Object count : results.getResponses()) {
        changed += ((Number) count).intValue();
      }
      return changed;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable(what + " of due keys", e);
    }
  }

  @Override
  public void remove(Collection<String> keys) {
    reachability.require("RedisDueIndex.remove");
    if (keys.isEmpty()) {
      return;
    }
    try {
      RBatch batch = redisson.createBatch();
      for (String key : keys) {
        batch.getScoredSortedSet(shardKey(shardOf(key)), StringCodec.INSTANCE).removeAsync(key);
        batch.getMap(plannedKey(shardOf(key)), StringCodec.INSTANCE).fastRemoveAsync(key);
      }
      batch.execute();
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("removal of due keys", e);
    }
  }

  @Override
  public OptionalLong plannedAt(String key) {
    reachability.require("RedisDueIndex.plannedAt");
    try {
      Double score = redisson.getScoredSortedSet(shardKey(shardOf(key)), StringCodec.INSTANCE).getScore(key);
      return score == null ? OptionalLong.empty() : OptionalLong.of(score.longValue());
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("due time of key '" + key + "'", e);
    }
  }

  @Override
  public long size() {
    reachability.require("RedisDueIndex.size");
    try {
      RBatch batch = redisson.createBatch();
      for (int shard = 0; shard < shards; shard++) {
        batch.getScoredSortedSet(shardKey(shard), StringCodec.INSTANCE).sizeAsync();
      }
      long total = 0;
      for (Object size : batch.execute().getResponses()) {
        total += ((Number) size).longValue();
      }
      return total;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("size of the due index", e);
    }
  }

}
