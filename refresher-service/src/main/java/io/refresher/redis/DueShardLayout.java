package io.refresher.redis;

import io.refresher.failure.CacheUnavailableException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.BatchResult;
import org.redisson.api.RBatch;
import org.redisson.api.RBucket;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The due index's shard count as recorded in Redis, and the move of its entries when it changes.
 *
 * <p>A key's shard is {@code hash % shards}: with another {@code scheduler.dueShards} the same key
 * belongs in another shard. Before this class a change stranded entries: a shard beyond the new
 * count was never claimed again, and an entry in a shard it no longer belongs to was claimed but
 * never rescheduled ({@code ZADD XX} on its new shard found nothing), so it came back only at the
 * end of each claim lease and was never removed.
 *
 * <p>As built:
 *
 * <ul>
 *   <li><b>Record.</b> Every possible shard ({@value #MAX_SHARDS}, the bound of {@code dueShards})
 *       has a marker in its own slot, {@code refresher:due:{n}:shards}, holding the count the
 *       entries are placed for. Shard 0's marker is the record replicas read ({@link #RECORD}).
 *       The index's write scripts check their shard's marker against the count they computed
 *       with, so a write computed with an old count is refused, not misplaced.
 *   <li><b>Migrate on start.</b> A replica whose configured count differs from the record (or that
 *       finds none: the first start, or Redis lost its data) takes a lock, records its intent
 *       ({@link #PENDING}), sets every marker to its count, then moves every entry that is not in
 *       its shard: read a page of a shard ({@code ZSCAN}), copy each misplaced entry to its shard
 *       ({@code ZADD LT}: added when missing, and an entry already there keeps the earlier time;
 *       its planned time goes with it), then delete the original only if its score is unchanged
 *       (one script per shard; a changed one is copied again). An entry therefore always exists
 *       in at least one shard: a crash in between leaves a copy, never a loss. The intent is
 *       cleared when every shard was swept; a replica that finds it still set (the migrating
 *       replica died) completes the move.
 *   <li><b>Follow.</b> Every dispatcher claim reads the record in the same round trip; a replica
 *       whose count differs follows the record (it logs it at INFO). Last started wins: during a
 *       rolling change, a replica still configured with the old count that restarts moves the
 *       entries back, and the next new one moves them again; each move costs one pass over the
 *       index.
 * </ul>
 *
 * <p>Cost: at a start with an unchanged count, one read. A move reads every entry once (pages of
 * {@value #PAGE}) and writes the misplaced ones: about {@code (1 - 1/shards)} of them for a change
 * of count.
 */
final class DueShardLayout {

  private static final Logger LOG = LoggerFactory.getLogger(DueShardLayout.class);

  /** The largest {@code scheduler.dueShards}; markers exist for every shard below it. */
  static final int MAX_SHARDS = 256;

  /** The record replicas read: shard 0's marker (every layout has a shard 0). */
  static final String RECORD = RedisDueIndex.markerKey(0);

  /** The shard count of a move not finished yet. */
  static final String PENDING = RedisDueIndex.PREFIX + "shards:pending";

  /** One move at a time across replicas. */
  static final String LOCK = RedisDueIndex.PREFIX + "shards:moving";

  private static final Duration LOCK_LEASE = Duration.ofSeconds(30);
  private static final int PAGE = 500;
  private static final int COPY_ROUNDS = 5;
  private static final long ATTEMPT_EVERY_MILLIS = 1000;

  /** KEYS: shard, its planned-times hash. ARGV: cursor, count. Returns cursor, member, score, planned ('' if none), ... */
  static final String SCAN_PAGE =
      """
      local page = redis.call('ZSCAN', KEYS[1], ARGV[1], 'COUNT', tonumber(ARGV[2]))
      local out = {page[1]}
      local items = page[2]
      for i = 1, #items, 2 do
        out[#out + 1] = items[i]
        out[#out + 1] = items[i + 1]
        out[#out + 1] = redis.call('HGET', KEYS[2], items[i]) or ''
      end
      return out
      """;

  /**
   * KEYS: shard, its planned-times hash, its marker. ARGV: shard count, member, score, planned, ...
   * Adds each entry, or moves it to an earlier time; a moved entry takes its planned time along.
   * Returns how many changed, or minus the recorded count when it is not the mover's.
   */
  static final String COPY_IN =
      """
      local recorded = redis.call('GET', KEYS[3])
      if recorded and recorded ~= ARGV[1] then return -tonumber(recorded) end
      local changed = 0
      for i = 2, #ARGV, 3 do
        if redis.call('ZADD', KEYS[1], 'LT', 'CH', ARGV[i + 1], ARGV[i]) == 1 then
          changed = changed + 1
          if ARGV[i + 2] == '' then
            redis.call('HDEL', KEYS[2], ARGV[i])
          else
            redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 2])
          end
        end
      end
      return changed
      """;

  /**
   * KEYS: shard, its planned-times hash. ARGV: member, score, ... Deletes each entry whose score is
   * still the given one. Returns member, score, planned ('' if none) of those whose score changed.
   */
  static final String DROP_IF_UNCHANGED =
      """
      local changed = {}
      for i = 1, #ARGV, 2 do
        local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
        if score and tonumber(score) == tonumber(ARGV[i + 1]) then
          redis.call('ZREM', KEYS[1], ARGV[i])
          redis.call('HDEL', KEYS[2], ARGV[i])
        elseif score then
          changed[#changed + 1] = ARGV[i]
          changed[#changed + 1] = score
          changed[#changed + 1] = redis.call('HGET', KEYS[2], ARGV[i]) or ''
        end
      end
      return changed
      """;

  /** KEYS: shard, its planned-times hash. Drops the hash of a shard left empty. */
  static final String TIDY =
      """
      if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('DEL', KEYS[2]) end
      return 0
      """;

  /** KEYS: lock. ARGV: token, lease ms. Returns 1 while the caller holds it. */
  private static final String EXTEND =
      """
      if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
      return 0
      """;

  /** KEYS: lock. ARGV: token. */
  private static final String RELEASE =
      """
      if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
      return 0
      """;

  static final List<String> SCRIPTS = List.of(SCAN_PAGE, COPY_IN, DROP_IF_UNCHANGED, TIDY);

  /** Why a move is considered; decides, under the lock, whether it is still needed. */
  private enum Reason {
    /** This replica starts with its configured count. */
    START,
    /** A move was recorded and not finished. */
    RESUME,
    /** The record is gone (Redis lost its data, or a fresh Redis). */
    LOST_RECORD
  }

  /** One sweep's counts. */
  private record Sweep(long checked, long moved, long left) {}

  private final RedissonClient redisson;
  private final RedisDueIndex index;
  private final int configured;
  private final AtomicBoolean moving = new AtomicBoolean();
  private final AtomicLong lastAttemptMillis = new AtomicLong();
  private volatile boolean startPending;

  private final Executor background;
  private final InstantSource clock;

  DueShardLayout(RedissonClient redisson, RedisDueIndex index, int configured, Executor background, InstantSource clock) {
    this.background = background;
    this.clock = clock;
    this.redisson = redisson;
    this.index = index;
    this.configured = configured;
  }

  int configured() {
    return configured;
  }

  /** See {@link RedisDueIndex#adoptConfiguredLayout()}. */
  long adoptConfigured() {
    try {
      long moved = moveTo(configured, Reason.START, LOCK_LEASE.multipliedBy(2));
      if (moved < 0) {
        startPending = true;
        LOG.warn(
            "due index: another replica is still moving entries between shards; this one moves them to its "
                + "{} shards once that is done, and follows the recorded count meanwhile",
            configured);
        return 0;
      }
      return moved;
    } catch (CacheUnavailableException e) {
      startPending = true;
      LOG.warn(
          "due index: could not check its shard count in Redis ({}); checked at the first claim that reaches Redis",
          e.getMessage());
      return 0;
    }
  }

  /**
   * What a claim read: the recorded count and the count of a pending move. Follows the record, or
   * starts a move in the background when one is needed (at most one a second).
   */
  void onRecordRead(String recorded, String pending, int inUse) {
    Integer target = null;
    Reason reason = null;
    if (startPending && (pending != null || !String.valueOf(configured).equals(recorded))) {
      target = configured;
      reason = Reason.START;
    } else if (pending != null) {
      target = parse(pending);
      reason = Reason.RESUME;
    } else if (recorded == null) {
      target = inUse;
      reason = Reason.LOST_RECORD;
    } else {
      startPending = false;
      Integer count = parse(recorded);
      if (count != null && count != inUse) {
        index.follow(count);
      }
      return;
    }
    if (target != null) {
      startInBackground(target, reason);
    }
  }

  private void startInBackground(int target, Reason reason) {
    long now = clock.millis();
    long last = lastAttemptMillis.get();
    if (now - last < ATTEMPT_EVERY_MILLIS || !lastAttemptMillis.compareAndSet(last, now)) {
      return;
    }
    if (!moving.compareAndSet(false, true)) {
      return;
    }
    Runnable move =
        () -> {
          try {
            if (moveTo(target, reason, Duration.ZERO) >= 0 && reason == Reason.START) {
              startPending = false;
            }
          } catch (RuntimeException e) {
            LOG.warn("due index: move of entries to {} shards failed ({}); tried again at a later claim", target, e.getMessage());
          } finally {
            moving.set(false);
          }
        };
    try {
      background.execute(move);
    } catch (RejectedExecutionException e) {
      moving.set(false); // stopping: the next replica's claim moves them
    }
  }

  /**
   * Records {@code target} and moves every misplaced entry, if {@code reason} still calls for it
   * under the lock; otherwise follows the record. Returns the entries moved, or -1 when another
   * replica held the lock for longer than {@code waitForLock}.
   */
  private long moveTo(int target, Reason reason, Duration waitForLock) {
    String token = UUID.randomUUID().toString();
    try {
      if (!lock(token, waitForLock)) {
        return -1;
      }
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("lock of the due index's shard count", e);
    }
    try {
      String recorded = get(RECORD);
      String pending = get(PENDING);
      boolean needed =
          switch (reason) {
            case START -> pending != null || !String.valueOf(target).equals(recorded);
            case RESUME -> pending != null;
            case LOST_RECORD -> recorded == null;
          };
      if (!needed) {
        Integer count = recorded == null ? null : parse(recorded);
        if (count != null) {
          index.follow(count);
        }
        return 0;
      }
      if (reason == Reason.RESUME) {
        Integer resumed = parse(pending);
        target = resumed == null ? index.shards() : resumed;
      }
      long started = clock.millis();
      record(target);
      index.follow(target);
      Sweep sweep = sweep(target, token);
      if (sweep.left() == 0) {
        redisson.getBucket(PENDING, StringCodec.INSTANCE).delete();
      }
      LOG.info(
          "due index: {} shards recorded (before: {}); moved {} entries to their shard ({} read) in {} ms{}",
          target,
          recorded == null ? "none recorded" : recorded,
          sweep.moved(),
          sweep.checked(),
          clock.millis() - started,
          sweep.left() == 0 ? "" : "; " + sweep.left() + " kept changing and stay to be moved by the next replica that checks");
      return sweep.moved();
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("move of due entries to " + target + " shards", e);
    } finally {
      release(token);
    }
  }

  /** The intent first, then every shard's marker: from here on, writes computed with another count are refused. */
  private void record(int target) {
    redisson.getBucket(PENDING, StringCodec.INSTANCE).set(Integer.toString(target));
    RBatch batch = redisson.createBatch();
    for (int shard = 0; shard < MAX_SHARDS; shard++) {
      batch.getBucket(RedisDueIndex.markerKey(shard), StringCodec.INSTANCE).setAsync(Integer.toString(target));
    }
    batch.execute();
  }

  private Sweep sweep(int target, String token) {
    RBatch probe = redisson.createBatch();
    for (int shard = 0; shard < MAX_SHARDS; shard++) {
      probe.getScoredSortedSet(RedisDueIndex.shardKey(shard), StringCodec.INSTANCE).isExistsAsync();
    }
    List<?> exists = probe.execute().getResponses();
    long checked = 0;
    long moved = 0;
    long left = 0;
    for (int shard = 0; shard < MAX_SHARDS; shard++) {
      if (!Boolean.TRUE.equals(exists.get(shard))) {
        continue;
      }
      String cursor = "0";
      do {
        List<Object> page = eval(shard, SCAN_PAGE, List.of(cursor, Integer.toString(PAGE)), RScript.ReturnType.MULTI);
        cursor = (String) page.get(0);
        List<Entry> misplaced = new ArrayList<>();
        for (int i = 1; i + 2 < page.size(); i += 3) {
          Entry entry = new Entry((String) page.get(i), (String) page.get(i + 1), (String) page.get(i + 2));
          checked++;
          if (RedisDueIndex.shardOf(entry.member(), target) != shard) {
            misplaced.add(entry);
          }
        }
        long[] result = moveOut(shard, misplaced, target);
        moved += result[0];
        left += result[1];
        if (!extend(token)) {
          throw new IllegalStateException("lost the lock of the move (held longer than " + LOCK_LEASE + " without renewal)");
        }
      } while (!"0".equals(cursor));
      if (shard >= target) {
        eval(shard, TIDY, List.of(), RScript.ReturnType.INTEGER);
      }
    }
    return new Sweep(checked, moved, left);
  }

  /** An entry as read: member, score and planned time ('' if none), as Redis wrote them. */
  private record Entry(String member, String score, String planned) {}

  /**
   * Copies each entry to its shard, then deletes it from {@code from} if unchanged; an entry that
   * changed meanwhile (claimed or renewed by a replica still on the old count) is copied again
   * with its new score. Returns {moved, left}.
   */
  private long[] moveOut(int from, List<Entry> entries, int target) {
    long moved = 0;
    List<Entry> todo = entries;
    for (int round = 0; round < COPY_ROUNDS && !todo.isEmpty(); round++) {
      Map<Integer, List<Object>> byShard = new HashMap<>();
      for (Entry entry : todo) {
        List<Object> args =
            byShard.computeIfAbsent(RedisDueIndex.shardOf(entry.member(), target), shard -> new ArrayList<>(List.of(Integer.toString(target))));
        args.add(entry.member());
        args.add(entry.score());
        args.add(entry.planned());
      }
      BatchResult<?> copied =
          index.executeScripts(
              batch ->
                  byShard.forEach(
                      (shard, args) ->
                          batch
                              .getScript(UnpooledStringCodec.INSTANCE)
                              .evalAsync(
                                  RedisDueIndex.shardKey(shard), RScript.Mode.READ_WRITE, COPY_IN, RScript.ReturnType.INTEGER,
                                  List.<Object>of(
                                      RedisDueIndex.shardKey(shard), RedisDueIndex.plannedKey(shard), RedisDueIndex.markerKey(shard)),
                                  args.toArray())));
      for (Object count : copied.getResponses()) {
        if (((Number) count).longValue() < 0) {
          throw new IllegalStateException(
              "another replica recorded " + -((Number) count).longValue() + " shards during the move to " + target);
        }
      }
      List<Object> drop = new ArrayList<>();
      for (Entry entry : todo) {
        drop.add(entry.member());
        drop.add(entry.score());
      }
      List<Object> changed = eval(from, DROP_IF_UNCHANGED, drop, RScript.ReturnType.MULTI);
      moved += todo.size() - changed.size() / 3;
      List<Entry> again = new ArrayList<>();
      for (int i = 0; i + 2 < changed.size(); i += 3) {
        again.add(new Entry((String) changed.get(i), (String) changed.get(i + 1), (String) changed.get(i + 2)));
      }
      todo = again;
    }
    return new long[] {moved, todo.size()};
  }

  private List<Object> eval(int shard, String script, List<Object> args, RScript.ReturnType type) {
    BatchResult<?> result =
        index.executeScripts(
            batch ->
                batch
                    .getScript(UnpooledStringCodec.INSTANCE)
                    .evalAsync(
                        RedisDueIndex.shardKey(shard), RScript.Mode.READ_WRITE, script, type,
                        List.<Object>of(RedisDueIndex.shardKey(shard), RedisDueIndex.plannedKey(shard)), args.toArray()));
    Object response = result.getResponses().get(0);
    if (response instanceof List<?> list) {
      return new ArrayList<>(list);
    }
    return List.of();
  }

  private boolean lock(String token, Duration waitForLock) {
    long deadline = System.nanoTime() + waitForLock.toNanos();
    RBucket<String> lock = redisson.getBucket(LOCK, StringCodec.INSTANCE);
    while (true) {
      // A lock holding this call's own token is this call's: Redisson re-sends a SET NX whose
      // reply was late, and the second send finds the first's lock.
      if (lock.setIfAbsent(token, LOCK_LEASE) || token.equals(lock.get())) {
        return true;
      }
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
      if (Thread.currentThread().isInterrupted()) {
        return false;
      }
    }
  }

  private boolean extend(String token) {
    Long held =
        redisson
            .getScript(StringCodec.INSTANCE)
            .eval(LOCK, RScript.Mode.READ_WRITE, EXTEND, RScript.ReturnType.INTEGER, List.of(LOCK), token, Long.toString(LOCK_LEASE.toMillis()));
    return held != null && held == 1;
  }

  private void release(String token) {
    try {
      redisson.getScript(StringCodec.INSTANCE).eval(LOCK, RScript.Mode.READ_WRITE, RELEASE, RScript.ReturnType.INTEGER, List.of(LOCK), token);
    } catch (RedisException e) {
      LOG.debug("due index: release of the move lock failed ({}); it expires in {}", e.getMessage(), LOCK_LEASE);
    }
  }

  private String get(String key) {
    return redisson.<String>getBucket(key, StringCodec.INSTANCE).get();
  }

  private static Integer parse(String count) {
    try {
      int value = Integer.parseInt(count.trim());
      return value >= 1 && value <= MAX_SHARDS ? value : null;
    } catch (NumberFormatException | NullPointerException e) {
      return null;
    }
  }
}
