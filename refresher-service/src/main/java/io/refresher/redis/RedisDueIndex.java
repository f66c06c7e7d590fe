package io.refresher.redis;

import io.refresher.prewarm.PrewarmPorts;
import io.refresher.failure.CacheUnavailableException;
import io.refresher.refresh.ClaimLeases;
import io.refresher.refresh.DueIndex;
import java.util.HashSet;
import java.util.Set;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.TimeUnit;
import java.util.OptionalLong;
import org.redisson.api.BatchOptions;
import org.redisson.api.BatchResult;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The due index as sorted sets in Redis: member = key, score = due time (epoch ms). It is split
 * into {@code shards} sets ({@code refresher:due:{0}}, {@code refresher:due:{1}}, ...) so that on
 * Redis Cluster the load spreads over several nodes; a key's shard is fixed by its Java string
 * hash and the shard count. Every operation touches all shards in one pipelined batch: one round
 * trip.
 *
 * <p>The shard count in use (the <em>layout</em>) is recorded in Redis, in every shard's slot
 * ({@link DueShardLayout}): a replica started with another {@code scheduler.dueShards} moves the
 * entries to its count at start, and the others follow the recorded count from their next claim.
 * Every script that adds, moves or removes entries carries the count it computed its shards with,
 * and a shard whose recorded count differs refuses it: the writer takes the recorded count and
 * writes again. A write computed with an old count therefore never lands in a shard that no
 * replica reads any more.
 *
 * <p>The index is rebuilt from PostgreSQL when lost ({@link io.refresher.refresh.DueIndexReconciler}).
 */
public final class RedisDueIndex implements DueIndex, ClaimLeases, PrewarmPorts.RefillSchedule {

  public static final String PREFIX = "refresher:due:";

  private static final Logger LOG = LoggerFactory.getLogger(RedisDueIndex.class);

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
   * KEYS: shard, its planned-times hash, its layout marker. ARGV: shard count, flag (XX, NX, LT, or
   * SET for none), score, member, score, member... Returns how many changed, or minus the recorded
   * shard count when it is not the caller's (nothing written). A key that gets a new time starts a
   * new plan: its first-planned time is forgotten.
   */
  static final String ZADD_FLAGGED =
      """
      local recorded = redis.call('GET', KEYS[3])
      if recorded and recorded ~= ARGV[1] then return -tonumber(recorded) end
      local changed = 0
      for i = 3, #ARGV, 2 do
        local moved
        if ARGV[2] == 'SET' then
          moved = redis.call('ZADD', KEYS[1], 'CH', ARGV[i], ARGV[i + 1])
        else
          moved = redis.call('ZADD', KEYS[1], ARGV[2], 'CH', ARGV[i], ARGV[i + 1])
        end
        if moved == 1 or ARGV[2] == 'SET' then redis.call('HDEL', KEYS[2], ARGV[i + 1]) end
        changed = changed + moved
      end
      return changed
      """;

  /**
   * KEYS: shard, its planned-times hash, its layout marker. ARGV: shard count, member, member...
   * Returns how many were removed, or minus the recorded shard count when it is not the caller's.
   */
  static final String REMOVE =
      """
      local recorded = redis.call('GET', KEYS[3])
      if recorded and recorded ~= ARGV[1] then return -tonumber(recorded) end
      local removed = 0
      for i = 2, #ARGV do
        removed = removed + redis.call('ZREM', KEYS[1], ARGV[i])
        redis.call('HDEL', KEYS[2], ARGV[i])
      end
      return removed
      """;

  /**
   * KEYS: shard, its planned-times hash. ARGV: horizon, limit, lease score. Claims like {@link
   * #CLAIM} and keeps each key's first planned time (HSETNX), so that a key claimed again after a
   * lost claim still reports when it was planned. Returns member, planned, member, planned, ...
   *
   * <p>Run twice with the same lease score (Redisson re-sends a script whose reply was late), it
   * answers what the first run took: the score names the claim, and keys already holding it were
   * taken by it. Claiming anew instead would answer other keys (or none) and leave the first run's
   * keys under a lease nobody holds, unrefreshed until it ends (issue 18: ~28 s after a 1.5 s pause).
   */
  static final String CLAIM_TAGGED =
      """
      local out = {}
      local taken = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[3], ARGV[3])
      if #taken > 0 then
        for i = 1, #taken do
          out[#out + 1] = taken[i]
          out[#out + 1] = redis.call('HGET', KEYS[2], taken[i]) or ARGV[3]
        end
        return out
      end
      local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
      for i = 1, #due, 2 do
        redis.call('ZADD', KEYS[1], ARGV[3], due[i])
        redis.call('HSETNX', KEYS[2], due[i], due[i + 1])
        out[#out + 1] = due[i]
        out[#out + 1] = redis.call('HGET', KEYS[2], due[i])
      end
      return out
      """;

  /**
   * KEYS: shard. ARGV: renewed score, member, expected score, ... Returns the members not renewed.
   * A member already at the renewed score counts as renewed: the renewed score is new for each
   * renewal (its fraction names it), so only this renewal's first run can have set it, and a
   * second run (a resend after a late reply) answers as the first did instead of reporting every
   * key lost.
   */
  static final String RENEW =
      """
      local lost = {}
      for i = 2, #ARGV, 2 do
        local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
        if score and (tonumber(score) == tonumber(ARGV[i + 1]) or tonumber(score) == tonumber(ARGV[1])) then
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

  /** A writer refused by a changing layout tries again this often with the recorded count. */
  private static final int LAYOUT_ATTEMPTS = 4;

  private final RedisReachability reachability;
  private final RedissonClient redisson;
  private final DueShardLayout layout;
  /** The shard count in use: the configured one until Redis records another. */
  private volatile int shards;

  /**
   * For tests and tools: Redis assumed reachable, this machine's clock, and a move of entries to
   * another shard count, when a claim finds one pending, on the common pool.
   */
  private final BatchOptions dispatcherBatches;

  public RedisDueIndex(RedissonClient redisson, int shards) {
    this(redisson, shards, RedisReachability.assumed(), ForkJoinPool.commonPool(), InstantSource.system(), null);
  }

  /**
   * @param reachability while Redis is known to be unreachable, calls fail at once
   * @param background runs a move of entries to another shard count that a claim found pending
   *     (rare, and long: every entry is read once)
   * @param clock this machine's: how often such a move is tried
   * @param dispatcherTimeout how long the dispatcher's own round trips (claim, renewal, the lookup
   *     of a claim whose reply was lost) wait for their reply; null: the client's timeout. They are
   *     small scripts that answer in milliseconds, and the dispatcher's one thread waits for them:
   *     a claim sent into the connection of a Redis that was just killed never gets its reply, and
   *     with the client's timeout (a value write's, seconds) the refill after the restart started
   *     that much later (StormRefillSingleReplicaIT: the 100 hottest keys back 2.8-4.8 s after
   *     Redis accepted connections instead of about 1 s, in 4 of 9 runs). A claim whose reply
   *     times out is recovered by its lease score at the next tick.
   */
  public RedisDueIndex(
      RedissonClient redisson,
      int shards,
      RedisReachability reachability,
      Executor background,
      InstantSource clock,
      Duration dispatcherTimeout) {
    this.dispatcherBatches =
        dispatcherTimeout == null
            ? BatchOptions.defaults()
            : BatchOptions.defaults().responseTimeout(dispatcherTimeout.toMillis(), TimeUnit.MILLISECONDS);
    this.reachability = reachability;
    this.redisson = redisson;
    this.shards = shards;
    this.layout = new DueShardLayout(redisson, this, shards, background, clock);
  }

  /** The shard count this index reads and writes with now. */
  public int shards() {
    return shards;
  }

  /**
   * Makes the configured shard count the recorded one, moving entries placed for another count;
   * at start, before this replica claims anything. Returns how many entries moved. When Redis
   * cannot be reached, the first claim that reaches it does this instead (in the background).
   */
  public long adoptConfiguredLayout() {
    return layout.adoptConfigured();
  }

  /** Uses {@code recorded} shards from now on (another replica recorded it). */
  void follow(int recorded) {
    int previous = shards;
    if (recorded != previous && recorded >= 1 && recorded <= DueShardLayout.MAX_SHARDS) {
      shards = recorded;
      LOG.info(
          "due index: Redis records {} shards (this replica had {}; scheduler.dueShards = {}): using {}",
          recorded, previous, layout.configured(), recorded);
    }
  }

  static String shardKey(int shard) {
    return PREFIX + "{" + shard + "}";
  }

  /** Each shard's first-planned times of claimed keys (same slot as the shard). */
  static String plannedKey(int shard) {
    return PREFIX + "{" + shard + "}:planned";
  }

  /** Each shard's record of the shard count its entries are placed for (same slot as the shard). */
  static String markerKey(int shard) {
    return PREFIX + "{" + shard + "}:shards";
  }

  static int shardOf(String key, int shards) {
    return Math.floorMod(key.hashCode(), shards);
  }

  @Override
  public List<DueKey> claim(long horizonMillis, int limit, long leaseUntilMillis) {
    reachability.require("RedisDueIndex.claim");
    int n = shards;
    // Each shard is asked for its share, rounded up: a batch may hold up to shards - 1 keys more
    // than the limit, which keeps one round trip per claim.
    int perShard = Math.max(1, (limit + n - 1) / n);
    try {
      BatchResult<?> results =
          executeScripts(
              batch -> {
                for (int shard = 0; shard < n; shard++) {
                  batch
                      .getScript(UnpooledStringCodec.INSTANCE)
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

  /**
   * The dispatcher's claim. The same round trip reads the recorded shard count, so that this
   * replica follows a change another replica made within one poll, and records its own when the
   * record was lost with Redis's data.
   */
  @Override
  public List<DueKey> claim(long horizonMillis, int limit, double leaseScore) {
    reachability.require("RedisDueIndex.claim");
    int n = shards;
    int perShard = Math.max(1, (limit + n - 1) / n);
    List<Object> responses;
    try {
      responses =
          new ArrayList<>(
              executeScripts(
                      dispatcherBatches,
                      batch -> {
                        addPerShard(
                            batch, n, CLAIM_TAGGED,
                            List.of(Long.toString(horizonMillis), Integer.toString(perShard), Double.toString(leaseScore)));
                        batch.getBucket(DueShardLayout.RECORD, StringCodec.INSTANCE).getAsync();
                        batch.getBucket(DueShardLayout.PENDING, StringCodec.INSTANCE).getAsync();
                      })
                  .getResponses());
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("claim of due keys", e);
    }
    layout.onRecordRead((String) responses.get(n), (String) responses.get(n + 1), n);
    List<List<Object>> results = new ArrayList<>();
    for (Object result : responses.subList(0, n)) {
      @SuppressWarnings("unchecked")
      List<Object> list = (List<Object>) result;
      results.add(list);
    }
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
    int n = shards;
    List<List<Object>> args = new ArrayList<>(n);
    for (int shard = 0; shard < n; shard++) {
      List<Object> list = new ArrayList<>();
      list.add(Double.toString(renewedScore));
      args.add(list);
    }
    expectedScores.forEach(
        (key, expected) -> {
          List<Object> shard = args.get(shardOf(key, n));
          shard.add(key);
          shard.add(Double.toString(expected));
        });
    Set<String> lost = new HashSet<>();
    try {
      BatchResult<?> results =
          executeScripts(
              dispatcherBatches,
              batch -> {
                for (int shard = 0; shard < n; shard++) {
                  if (args.get(shard).size() > 1) {
                    batch
                        .getScript(UnpooledStringCodec.INSTANCE)
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
    int n = shards;
    try {
      List<List<Object>> results = new ArrayList<>();
      for (Object result :
          executeScripts(
                  dispatcherBatches, batch -> addPerShard(batch, n, CLAIMED_WITH, List.of(Double.toString(leaseScore))))
              .getResponses()) {
        @SuppressWarnings("unchecked")
        List<Object> list = (List<Object>) result;
        results.add(list);
      }
      return pairs(results);
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("lookup of a claim", e);
    }
  }

  /** One script per shard on the shard and its planned-times hash, with the same arguments. */
  private static void addPerShard(RBatch batch, int n, String script, List<Object> args) {
    for (int shard = 0; shard < n; shard++) {
      batch
          .getScript(UnpooledStringCodec.INSTANCE)
          .evalAsync(
              shardKey(shard), RScript.Mode.READ_WRITE, script, RScript.ReturnType.MULTI,
              List.<Object>of(shardKey(shard), plannedKey(shard)), args.toArray());
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
   * after a data loss, in the middle of the refill. The scripts' arguments are encoded with {@link
   * UnpooledStringCodec}: Redisson drops a batch whose script load failed (Redis still unreachable
   * after a disconnect) without releasing them.
   */
  BatchResult<?> executeScripts(java.util.function.Consumer<RBatch> fill) {
    return executeScripts(BatchOptions.defaults(), fill);
  }

  private BatchResult<?> executeScripts(BatchOptions options, java.util.function.Consumer<RBatch> fill) {
    RBatch batch = redisson.createBatch(options);
    fill.accept(batch);
    try {
      return batch.execute();
    } catch (RedisException e) {
      if (!String.valueOf(e.getMessage()).contains("NOSCRIPT")) {
        throw e;
      }
      RScript scripts = redisson.getScript(StringCodec.INSTANCE);
      for (String script : List.of(CLAIM, CLAIM_TAGGED, RENEW, CLAIMED_WITH, ZADD_FLAGGED, REMOVE)) {
        scripts.scriptLoad(script);
      }
      DueShardLayout.SCRIPTS.forEach(scripts::scriptLoad);
      RBatch again = redisson.createBatch(options);
      fill.accept(again);
      return again.execute();
    }
  }

  @Override
  public void schedule(String key, long atMillis) {
    reachability.require("RedisDueIndex.schedule");
    zaddFlagged("SET", Map.of(key, (double) atMillis), "scheduling of key '" + key + "'");
  }

  @Override
  public void reschedule(Map<String, Long> atMillisByKey) {
    reachability.require("RedisDueIndex.reschedule");
    if (atMillisByKey.isEmpty()) {
      return;
    }
    Map<String, Double> at = new java.util.HashMap<>(atMillisByKey.size() * 2);
    atMillisByKey.forEach((key, millis) -> at.put(key, (double) millis));
    zaddFlagged("XX", at, "rescheduling of due keys");
  }

  @Override
  public int addMissing(Collection<String> keys, long atMillis) {
    reachability.require("RedisDueIndex.addMissing");
    Map<String, Double> at = new java.util.HashMap<>(keys.size() * 2);
    keys.forEach(key -> at.put(key, (double) atMillis));
    return zaddFlagged("NX", at, "repair of due keys");
  }

  /** {@code ZADD LT}: added when missing, moved only to an earlier time. */
  @Override
  public int scheduleEarliest(Map<String, Double> dueAtMillis) {
    reachability.require("RedisDueIndex.scheduleEarliest");
    return zaddFlagged("LT", dueAtMillis, "refill of due keys");
  }

  /** {@code ZADD NX}, each key at its own time. */
  @Override
  public int scheduleIfMissing(Map<String, Double> dueAtMillis) {
    reachability.require("RedisDueIndex.scheduleIfMissing");
    return zaddFlagged("NX", dueAtMillis, "repair of due keys");
  }

  /** {@code ZADD <flag> CH} of each key at its time, one script per shard, one round trip. */
  private int zaddFlagged(String flag, Map<String, Double> atMillisByKey, String what) {
    if (atMillisByKey.isEmpty()) {
      return 0;
    }
    return writeWithLayout(
        n -> {
          List<List<Object>> args = newShardLists(n, flag);
          atMillisByKey.forEach(
              (key, at) -> {
                List<Object> shard = args.get(shardOf(key, n));
                // Whole milliseconds as integers, as the index has always written them; ranks of a
                // refill carry fractions.
                shard.add(at == Math.rint(at) ? Long.toString(at.longValue()) : Double.toString(at));
                shard.add(key);
              });
          return args;
        },
        ZADD_FLAGGED,
        what);
  }

  @Override
  public void remove(Collection<String> keys) {
    reachability.require("RedisDueIndex.remove");
    if (keys.isEmpty()) {
      return;
    }
    writeWithLayout(
        n -> {
          List<List<Object>> args = newShardLists(n, null);
          keys.forEach(key -> args.get(shardOf(key, n)).add(key));
          return args;
        },
        REMOVE,
        "removal of due keys");
  }

  /** Per shard: the shard count, then {@code first} unless null. */
  private static List<List<Object>> newShardLists(int n, String first) {
    List<List<Object>> args = new ArrayList<>(n);
    for (int shard = 0; shard < n; shard++) {
      List<Object> list = new ArrayList<>();
      list.add(Integer.toString(n));
      if (first != null) {
        list.add(first);
      }
      args.add(list);
    }
    return args;
  }

  /**
   * Runs a layout-checked write script on every shard that has work, with arguments computed for
   * the shard count in use. When a shard records another count (another replica changed it), this
   * index follows the recorded count and runs the whole write again with it: every script here is
   * idempotent (a repeated {@code ZADD} of the same time, {@code ZREM} of a removed key).
   */
  private int writeWithLayout(
      java.util.function.IntFunction<List<List<Object>>> argsFor, String script, String what) {
    for (int attempt = 1; ; attempt++) {
      int n = shards;
      List<List<Object>> args = argsFor.apply(n);
      int header = script.equals(REMOVE) ? 1 : 2;
      try {
        BatchResult<?> results =
            executeScripts(
                batch -> {
                  for (int shard = 0; shard < n; shard++) {
                    List<Object> shardArgs = args.get(shard);
                    if (shardArgs.size() > header) {
                      batch
                          .getScript(UnpooledStringCodec.INSTANCE)
                          .evalAsync(
                              shardKey(shard),
                              RScript.Mode.READ_WRITE,
                              script,
                              RScript.ReturnType.INTEGER,
                              List.<Object>of(shardKey(shard), plannedKey(shard), markerKey(shard)),
                              shardArgs.toArray());
                    }
                  }
                });
        int changed = 0;
        int recorded = 0;
        for (Object count : results.getResponses()) {
          int value = ((Number) count).intValue();
          if (value < 0) {
            recorded = -value;
          } else {
            changed += value;
          }
        }
        if (recorded == 0) {
          return changed;
        }
        if (attempt >= LAYOUT_ATTEMPTS) {
          throw new CacheUnavailableException(
              what + " failed: the due index's shard count kept changing (now " + recorded + ")", null);
        }
        follow(recorded);
      } catch (RedisException e) {
        throw RedisCacheStore.unavailable(what, e);
      }
    }
  }

  @Override
  public Map<String, Long> plannedAt(List<String> keys) {
    reachability.require("RedisDueIndex.plannedAt");
    try {
      RBatch batch = redisson.createBatch();
      Map<String, org.redisson.api.RFuture<Double>> scores = new java.util.LinkedHashMap<>();
      for (String key : keys) {
        scores.put(key, batch.<String>getScoredSortedSet(shardKey(shardOf(key, shards)), StringCodec.INSTANCE).getScoreAsync(key));
      }
      batch.execute();
      Map<String, Long> planned = new java.util.HashMap<>();
      scores.forEach((key, score) -> {
        Double at = score.toCompletableFuture().join();
        if (at != null) {
          planned.put(key, at.longValue());
        }
      });
      return planned;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("due times of " + keys.size() + " keys", e);
    }
  }

  @Override
  public OptionalLong plannedAt(String key) {
    reachability.require("RedisDueIndex.plannedAt");
    try {
      Double score =
          redisson.getScoredSortedSet(shardKey(shardOf(key, shards)), StringCodec.INSTANCE).getScore(key);
      return score == null ? OptionalLong.empty() : OptionalLong.of(score.longValue());
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("due time of key '" + key + "'", e);
    }
  }

  @Override
  public long size() {
    reachability.require("RedisDueIndex.size");
    int n = shards;
    try {
      RBatch batch = redisson.createBatch();
      for (int shard = 0; shard < n; shard++) {
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
