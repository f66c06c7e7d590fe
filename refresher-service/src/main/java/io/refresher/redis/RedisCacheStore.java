package io.refresher.redis;

import io.refresher.client.protocol.CacheKeys;
import java.util.concurrent.CompletionException;
import io.refresher.refresh.CacheStore;
import io.refresher.failure.CacheUnavailableException;
import io.refresher.refresh.Fence;
import io.refresher.refresh.KeyLocks;
import io.refresher.refresh.KeyState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import io.refresher.client.protocol.MetaFields;
import java.util.Map;
import java.util.Optional;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisException;
import org.redisson.client.RedisRetryException;
import org.redisson.client.RedisTimeoutException;
import org.redisson.client.codec.StringCodec;

/**
 * Writes values and their metadata to Redis with the fenced, atomic protocol described in {@code
 * docs/protocol.md}.
 *
 * <p>The value is a plain string under the application's key, readable with {@code GET}. The
 * metadata hash ({@link CacheKeys#metaKey}) holds {@code epoch}, {@code token} (the fence), {@code
 * computedAt}, {@code delta} (compute time, ms), {@code expiresAt} (logical expiry, epoch ms) and
 * {@code size}; after failures also {@code error}, {@code errorKind}, {@code errorAt} and {@code
 * failures}. Both expire together at the physical TTL.
 */
public final class RedisCacheStore implements CacheStore {

  /**
   * The write of a batch of keys ({@link BatchedScript}). KEYS per item: value, meta, lock token
   * counter, lock. ARGV per item: value, physical TTL ms, epoch, token, computedAt, delta,
   * expiresAt, history size, generation, counter margin ms, lock owner (empty: no lock to
   * release), mode ({@code w} write, {@code x} extend), validator (empty: none). Answers per item
   * {status, failures the write cleared, recent compute durations}, status 1 written, 0 a newer
   * fence is stored, 2 refused and the token counter repaired, 3 the registration was deleted, 4
   * nothing to extend, 5 the registration was replaced by a newer generation. The recent durations ride along in the same hash (comma-separated, oldest
   * first), so the adaptive TTR needs no extra round trip.
   *
   * <p>Extend (a revalidation: the source said the value still holds) passes the same checks, then
   * only moves the value's TTL, the fence, {@code expiresAt} and {@code revalidatedAt} (computedAt
   * is then the revalidation's time): the value, its size, compute durations and validator stay.
   * With no value to extend it changes nothing and keeps the lock (status 4), so the caller can
   * compute the value under it. A write stores the validator it was computed with, or removes the
   * old one.
   *
   * <p>The metadata is updated in place (not deleted and written again): the fields of a failure
   * streak this write ends are removed, the generation and tombstone are kept or cleared as
   * described below.
   *
   * <p>The lock: whatever the status, the lock the value was computed under is released (deleted
   * if it still holds this owner), so a successful refresh needs no unlock request of its own.
   *
   * <p>The generation: a write of a deleted generation (the tombstone's {@code retired}) or of an
   * older one than stored is refused; a template's write (generation 0) keeps the stored
   * generation and tombstone, and the tombstone's TTL if longer than its own, so a late write of
   * the deleted registration stays refused after it for {@code refresh.deletedTombstone}.
   *
   * <p>The counter: Redisson's fenced lock keeps it without a TTL; here it is made to expire a
   * margin after the value, so it never outlives the key (no leak) and never dies before the
   * metadata holding its last token. If it was evicted anyway, the next lock hands out a token
   * below the stored one: the write is refused once and the counter raised to the stored token
   * (a counter below a stored token can only mean it was lost: every token handed out came from
   * it), so the key is not wedged until the counter climbs back by itself.
   *
   * <p>Run twice (Redisson re-sends a script whose reply was late), a write whose fence,
   * computedAt and value are already stored answers written, with the stored durations, and
   * changes nothing: the second run would otherwise add its compute duration to the history once
   * more. The value is compared too because computedAt has millisecond resolution: two writes of
   * one fence within a millisecond (a fast machine) are two writes, not a resend.
   */
  static final String WRITE =
      """
      local function keepCounterFinite(counter, meta, ttl, margin)
        if redis.call('PTTL', counter) == -1 then
          redis.call('PEXPIRE', counter, math.max(redis.call('PTTL', meta), ttl) + margin)
        end
      end
      local function write(value, meta, counter, a)
        local stored = redis.call('HMGET', meta, 'epoch', 'token', 'failures', 'recent', 'generation', 'retired', 'computedAt')
        local epoch = tonumber(ARGV[a + 3])
        local token = tonumber(ARGV[a + 4])
        local generation = tonumber(ARGV[a + 9])
        local storedGeneration = tonumber(stored[5] or '0')
        local ttl = tonumber(ARGV[a + 2])
        local margin = tonumber(ARGV[a + 10])
        if generation > 0 and (generation < storedGeneration or (generation == storedGeneration and stored[6])) then
          keepCounterFinite(counter, meta, ttl, margin)
          if stored[6] then return 3, 0, '' end
          return 5, 0, ''
        end
        if stored[1] then
          local storedEpoch = tonumber(stored[1])
          local storedToken = tonumber(stored[2])
          if storedEpoch > epoch or (storedEpoch == epoch and storedToken > token) then
            if storedEpoch == epoch and tonumber(redis.call('GET', counter) or '0') < storedToken then
              redis.call('SET', counter, stored[2], 'PX', ttl + margin)
              return 2, 0, ''
            end
            keepCounterFinite(counter, meta, ttl, margin)
            return 0, 0, ''
          end
        end
        if ARGV[a + 12] == 'w' and stored[1] == ARGV[a + 3] and stored[2] == ARGV[a + 4] and stored[7] == ARGV[a + 5]
            and redis.call('GET', value) == ARGV[a + 1] then
          return 1, 0, stored[4] or ''
        end
        local recent
        if ARGV[a + 12] == 'x' then
          if redis.call('EXISTS', value) == 0 then
            return 4, 0, ''
          end
          recent = stored[4] or ''
          redis.call('PEXPIRE', value, ttl)
          redis.call('HSET', meta, 'epoch', ARGV[a + 3], 'token', ARGV[a + 4], 'expiresAt', ARGV[a + 7],
            'revalidatedAt', ARGV[a + 5])
        else
          local samples = {}
          if stored[4] then
            for sample in string.gmatch(stored[4], '[^,]+') do samples[#samples + 1] = sample end
          end
          samples[#samples + 1] = ARGV[a + 6]
          local keep = tonumber(ARGV[a + 8])
          recent = table.concat(samples, ',', math.max(1, #samples - keep + 1), #samples)
          redis.call('SET', value, ARGV[a + 1], 'PX', ttl)
          redis.call('HSET', meta, 'epoch', ARGV[a + 3], 'token', ARGV[a + 4], 'computedAt', ARGV[a + 5],
            'delta', ARGV[a + 6], 'expiresAt', ARGV[a + 7], 'size', string.len(ARGV[a + 1]), 'recent', recent)
          if ARGV[a + 13] ~= '' then
            redis.call('HSET', meta, 'validator', ARGV[a + 13])
            redis.call('HDEL', meta, 'revalidatedAt')
          else
            redis.call('HDEL', meta, 'revalidatedAt', 'validator')
          end
        end
        if stored[3] then
          redis.call('HDEL', meta, 'failures', 'errorKind', 'error', 'errorAt')
        end
        local metaTtl = ttl
        if storedGeneration > generation then
          -- a template's write keeps the newer generation and its tombstone, whose TTL only grows
          if stored[6] then metaTtl = math.max(ttl, redis.call('PTTL', meta)) end
        elseif generation > 0 then
          redis.call('HSET', meta, 'generation', ARGV[a + 9])
          if stored[6] then redis.call('HDEL', meta, 'retired') end
        elseif stored[5] or stored[6] then
          redis.call('HDEL', meta, 'generation', 'retired')
        end
        redis.call('PEXPIRE', meta, metaTtl)
        redis.call('PEXPIRE', counter, metaTtl + margin)
        return 1, tonumber(stored[3] or '0'), recent
      end
      local out = {}
      for i = 0, #KEYS / 4 - 1 do
        local k = i * 4
        local a = i * 13
        local status, cleared, recent = write(KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], a)
        local owner = ARGV[a + 11]
        if owner ~= '' and status ~= 4 and redis.call('HEXISTS', KEYS[k + 4], owner) == 1 then
          redis.call('DEL', KEYS[k + 4])
        end
        out[#out + 1] = status
        out[#out + 1] = cleared
        out[#out + 1] = recent
      end
      return out
      """;

  /** Most writes in one script call: a script blocks Redis while it runs, readers included. */
  static final int MAX_WRITE_BATCH = 32;

  /** Write calls on the wire at once; more writes wait and go together (see RedisKeyLocks.IN_FLIGHT). */
  static final int WRITES_IN_FLIGHT = 1;

  /** Most value bytes in one script call; a larger value is written alone. */
  static final int MAX_WRITE_BATCH_BYTES = 256 * 1024;

  /**
   * KEYS: meta, lock token counter. ARGV: epoch, token, kind, error, at, TTL ms if new, counter
   * margin ms. Returns the failure count, or 0 when a newer fence is stored. The stored fence is
   * left as it is: a failure is no value, and only a newer value may refuse older ones. A failure
   * already recorded (same time and message: the same call run a second time, as Redisson does
   * after a late reply) answers the count it left instead of counting itself twice.
   */
  static final String RECORD_FAILURE =
      """
      local recorded = redis.call('HMGET', KEYS[1], 'errorAt', 'error', 'failures')
      if recorded[1] == ARGV[5] and recorded[2] == ARGV[4] and recorded[3] then
        return tonumber(recorded[3])
      end
      local stored = redis.call('HMGET', KEYS[1], 'epoch', 'token')
      local epoch = tonumber(ARGV[1])
      local token = tonumber(ARGV[2])
      if stored[1] then
        local storedEpoch = tonumber(stored[1])
        local storedToken = tonumber(stored[2])
        if storedEpoch > epoch or (storedEpoch == epoch and storedToken > token) then
          return 0
        end
      end
      local existed = redis.call('EXISTS', KEYS[1])
      redis.call('HSET', KEYS[1], 'errorKind', ARGV[3], 'error', ARGV[4], 'errorAt', ARGV[5])
      local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
      if existed == 0 then
        redis.call('PEXPIRE', KEYS[1], ARGV[6])
      end
      local metaTtl = redis.call('PTTL', KEYS[1])
      if metaTtl > 0 then
        redis.call('PEXPIRE', KEYS[2], metaTtl + tonumber(ARGV[7]))
      end
      return failures
      """;

  /**
   * KEYS: value, meta, lock token counter. ARGV: generation, evict (1/0), tombstone ms, counter
   * margin ms, mode ({@code retire}: the registration of the generation is deleted; {@code
   * supersede}: it replaced an older one). Retiring leaves {@code generation} and {@code retired}
   * in the metadata; evicting deletes value, metadata and counter first. Superseding raises the
   * stored {@code generation} (never lowers it) and clears a tombstone of an older generation, so
   * that a refresh of the replaced registration still running is refused like one of a deleted
   * registration. Either way the record lasts at least the tombstone's time.
   */
  static final String MARK_GENERATION =
      """
      local storedGeneration = tonumber(redis.call('HGET', KEYS[2], 'generation') or '0')
      local generation = math.max(tonumber(ARGV[1]), storedGeneration)
      local tombstone = tonumber(ARGV[3])
      if ARGV[5] == 'supersede' then
        if tonumber(ARGV[1]) <= storedGeneration then
          return 0
        end
        redis.call('HSET', KEYS[2], 'generation', generation)
        redis.call('HDEL', KEYS[2], 'retired')
      else
        if ARGV[2] == '1' then
          redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
        end
        redis.call('HSET', KEYS[2], 'generation', generation, 'retired', '1')
      end
      local ttl = redis.call('PTTL', KEYS[2])
      if ttl < tombstone then
        redis.call('PEXPIRE', KEYS[2], tombstone)
        ttl = tombstone
      end
      if redis.call('EXISTS', KEYS[3]) == 1 then
        redis.call('PEXPIRE', KEYS[3], ttl + tonumber(ARGV[4]))
      end
      return 1
      """;

  /** How much longer than the value (or metadata) a lock token counter lives. */
  static final long COUNTER_MARGIN_MILLIS = 60_000;

  private static final int MAX_ERROR_LENGTH = 500;

  private final RedisReachability reachability;
  private final RedissonClient redisson;
  private final BatchedScript<Write, WriteResult> writes;

  public RedisCacheStore(RedissonClient redisson) {
    this(redisson, RedisReachability.assumed(), false);
  }

  /**
   * @param reachability while Redis is known to be unreachable, calls fail at once
   * @param cluster whether Redis is a cluster (writes of different slots go as separate calls)
   */
  public RedisCacheStore(RedissonClient redisson, RedisReachability reachability, boolean cluster) {
    this.reachability = reachability;
    this.redisson = redisson;
    this.writes =
        new BatchedScript<>(
            redisson,
            cluster,
            WRITE,
            new WriteShape(),
            MAX_WRITE_BATCH,
            MAX_WRITE_BATCH_BYTES,
            WRITES_IN_FLIGHT,
            java.time.Duration.ofSeconds(30));
  }

  @Override
  public WriteResult write(
      String key,
      String value,
      Fence fence,
      long generation,
      ValueMeta meta,
      Duration physicalTtl,
      int history,
      KeyLocks.HeldLock lock) {
    reachability.require("RedisCacheStore.write");
    Write write = Write.of(key, lock, value, fence, generation, meta, physicalTtl, history, false);
    if (lock instanceof RedisKeyLocks.Held held) {
      held.releasedByScript();
    }
    try {
      return writes.call(write);
    } catch (RedisException e) {
      if (lock instanceof RedisKeyLocks.Held held) {
        held.releaseUnconfirmed();
      }
      throw unavailable("write of key '" + key + "'", e);
    }
  }

  /** The writes in as few script calls as the batch limits allow. */
  @Override
  public java.util.Map<String, WriteAttempt> writeAll(List<WriteRequest> requests) {
    java.util.Map<String, WriteAttempt> attempts = new java.util.HashMap<>();
    try {
      reachability.require("RedisCacheStore.writeAll");
    } catch (CacheUnavailableException e) {
      requests.forEach(request -> attempts.put(request.key(), new WriteAttempt(null, e)));
      return attempts;
    }
    List<Write> items = new ArrayList<>(requests.size());
    for (WriteRequest r : requests) {
      items.add(Write.of(r.key(), r.lock(), r.value(), r.fence(), r.generation(), r.meta(), r.physicalTtl(), r.history(), false));
      if (r.lock() instanceof RedisKeyLocks.Held held) {
        held.releasedByScript();
      }
    }
    List<java.util.concurrent.CompletableFuture<WriteResult>> answers = writes.submitAll(items);
    for (int i = 0; i < requests.size(); i++) {
      WriteRequest request = requests.get(i);
      try {
        attempts.put(request.key(), new WriteAttempt(writes.await(answers.get(i)), null));
      } catch (RedisException e) {
        if (request.lock() instanceof RedisKeyLocks.Held held) {
          held.releaseUnconfirmed();
        }
        attempts.put(request.key(), new WriteAttempt(null, unavailable("write of key '" + request.key() + "'", e)));
      }
    }
    return attempts;
  }

  @Override
  public WriteResult extend(
      String key,
      Fence fence,
      long generation,
      Instant revalidatedAt,
      Instant expiresAt,
      Duration physicalTtl,
      KeyLocks.HeldLock lock) {
    reachability.require("RedisCacheStore.extend");
    Write extension =
        Write.of(key, lock, "", fence, generation, new ValueMeta(revalidatedAt, Duration.ZERO, expiresAt), physicalTtl, 0, true);
    WriteResult result;
    try {
      result = writes.call(extension);
    } catch (RedisException e) {
      throw unavailable("revalidation of key '" + key + "'", e);
    }
    if (result.status() != WriteStatus.VALUE_GONE && lock instanceof RedisKeyLocks.Held held) {
      held.releasedByScript();
    }
    return result;
  }

  /** KEYS: value, meta. The validator stored with the value, or nil without a value. */
  static final String VALIDATOR =
      """
      if redis.call('EXISTS', KEYS[1]) == 0 then
        return false
      end
      return redis.call('HGET', KEYS[2], 'validator')
      """;

  /**
   * KEYS: value, meta. The value and the metadata fields the audit needs, read in one step so that
   * a refresh cannot slip between them: {value, computedAt, revalidatedAt, validator}, or nil when
   * there is no value.
   */
  static final String SERVED =
      """
      local value = redis.call('GET', KEYS[1])
      if not value then
        return false
      end
      local meta = redis.call('HMGET', KEYS[2], 'computedAt', '%s', 'validator')
      return {value, meta[1] or '', meta[2] or '', meta[3] or ''}
      """
          .formatted(MetaFields.REVALIDATED_AT);

  @Override
  public Optional<Served> served(String key) {
    reachability.require("RedisCacheStore.served");
    try {
      List<Object> read =
          redisson
              .getScript(StringCodec.INSTANCE)
              .eval(
                  key,
                  RScript.Mode.READ_ONLY,
                  SERVED,
                  RScript.ReturnType.MULTI,
                  List.<Object>of(key, CacheKeys.metaKey(key)));
      if (read == null || read.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(
          new Served(
              (String) read.get(0),
              instant(emptyAsNull(read.get(1))),
              instant(emptyAsNull(read.get(2))),
              emptyAsNull(read.get(3))));
    } catch (RedisException e) {
      throw unavailable("value of key '" + key + "'", e);
    }
  }

  private static String emptyAsNull(Object field) {
    return field == null || "".equals(field) ? null : (String) field;
  }

  @Override
  public Optional<String> validator(String key) {
    reachability.require("RedisCacheStore.validator");
    try {
      String validator =
          redisson
              .getScript(StringCodec.INSTANCE)
              .eval(
                  key,
                  RScript.Mode.READ_ONLY,
                  VALIDATOR,
                  RScript.ReturnType.VALUE,
                  List.<Object>of(key, CacheKeys.metaKey(key)));
      return Optional.ofNullable(validator);
    } catch (RedisException e) {
      throw unavailable("validator of key '" + key + "'", e);
    }
  }

  /**
   * KEYS: value, meta. Deletes the value and what the metadata says about it ({@code expiresAt}
   * above all: a reader taking it for a fresh value's would not cache the key again until then);
   * keeps the fence, the generation and tombstone, the compute history and the failure streak,
   * which the next refresh is checked against or plans with. Running it twice changes nothing more.
   */
  static final String EVICT =
      """
      redis.call('DEL', KEYS[1])
      redis.call('HDEL', KEYS[2], 'computedAt', 'delta', 'expiresAt', 'size', 'validator', 'revalidatedAt')
      return 1
      """;

  @Override
  public void evictValue(String key) {
    reachability.require("RedisCacheStore.evictValue");
    try {
      redisson
          .getScript(StringCodec.INSTANCE)
          .eval(
              key,
              RScript.Mode.READ_WRITE,
              EVICT,
              RScript.ReturnType.INTEGER,
              List.<Object>of(key, CacheKeys.metaKey(key)));
    } catch (RedisException e) {
      throw unavailable("eviction of key '" + key + "'", e);
    }
  }

  /** Value write script calls sent so far (a batch counts once on a standalone Redis). */
  public long writeRequests() {
    return writes.requests();
  }

  /** Writes waiting for the one in flight (for tests). */
  int queuedWrites() {
    return writes.queued();
  }

  private record Write(
      String key,
      String lockName,
      String owner,
      String value,
      Fence fence,
      long generation,
      ValueMeta meta,
      long physicalTtlMillis,
      int history,
      boolean extend) {

    /** A write carrying the lock it releases: the service's own (name and owner), or none. */
    static Write of(
        String key,
        KeyLocks.HeldLock lock,
        String value,
        Fence fence,
        long generation,
        ValueMeta meta,
        Duration physicalTtl,
        int history,
        boolean extend) {
      String lockName = CacheKeys.lockName(key);
      String owner = "";
      if (lock instanceof RedisKeyLocks.Held held) {
        lockName = held.lockName();
        owner = held.owner();
      }
      return new Write(key, lockName, owner, value, fence, generation, meta, physicalTtl.toMillis(), history, extend);
    }
  }

  private static final class WriteShape implements BatchedScript.Shape<Write, WriteResult> {
    @Override
    public String routingKey(Write item) {
      return item.key();
    }

    @Override
    public void keys(Write item, List<Object> into) {
      into.add(item.key());
      into.add(CacheKeys.metaKey(item.key()));
      into.add(RedisKeyLocks.tokenCounterName(item.key()));
      into.add(item.lockName());
    }

    @Override
    public void args(Write item, List<Object> into) {
      into.add(item.value());
      into.add(Long.toString(item.physicalTtlMillis()));
      into.add(Long.toString(item.fence().epoch()));
      into.add(Long.toString(item.fence().token()));
      into.add(Long.toString(item.meta().computedAt().toEpochMilli()));
      into.add(Long.toString(item.meta().computeDuration().toMillis()));
      into.add(Long.toString(item.meta().expiresAt().toEpochMilli()));
      into.add(Integer.toString(item.history()));
      into.add(Long.toString(item.generation()));
      into.add(Long.toString(COUNTER_MARGIN_MILLIS));
      into.add(item.owner());
      into.add(item.extend() ? "x" : "w");
      String validator = item.meta().validator();
      into.add(validator == null ? "" : validator);
    }

    @Override
    public int weight(Write item) {
      // UTF-16 length: close enough to bound a batch (the exact size is checked before).
      return item.value().length() + 200;
    }

    @Override
    public int replyWidth() {
      return 3;
    }

    @Override
    public WriteResult parse(List<?> reply, int offset) {
      WriteStatus status = status(((Number) reply.get(offset)).intValue());
      return new WriteResult(
          status,
          ((Number) reply.get(offset + 1)).intValue(),
          status == WriteStatus.WRITTEN ? durations((String) reply.get(offset + 2)) : List.of());
    }
  }

  @Override
  public int recordFailure(
      String key, Fence fence, String kind, String error, Instant at, Duration metaTtlIfNew) {
    reachability.require("RedisCacheStore.recordFailure");
    String message = error == null ? "" : error;
    if (message.length() > MAX_ERROR_LENGTH) {
      message = message.substring(0, MAX_ERROR_LENGTH) + "...";
    }
    try {
      Long failures =
          redisson
              .getScript(StringCodec.INSTANCE)
              .eval(
                  key,
                  RScript.Mode.READ_WRITE,
                  RECORD_FAILURE,
                  RScript.ReturnType.INTEGER,
                  List.<Object>of(CacheKeys.metaKey(key), RedisKeyLocks.tokenCounterName(key)),
                  Long.toString(fence.epoch()),
                  Long.toString(fence.token()),
                  kind,
                  message,
                  Long.toString(at.toEpochMilli()),
                  Long.toString(metaTtlIfNew.toMillis()),
                  Long.toString(COUNTER_MARGIN_MILLIS));
      return failures.intValue();
    } catch (RedisException e) {
      throw unavailable("failure record of key '" + key + "'", e);
    }
  }

  @Override
  public Map<String, Long> valueTimes(List<String> keys) {
    reachability.require("RedisCacheStore.valueTimes");
    try {
      RBatch batch = redisson.createBatch();
      Map<String, org.redisson.api.RFuture<Map<String, String>>> metas = new java.util.LinkedHashMap<>();
      Map<String, org.redisson.api.RFuture<Boolean>> present = new java.util.LinkedHashMap<>();
      for (String key : keys) {
        metas.put(
            key,
            batch.<String, String>getMap(CacheKeys.metaKey(key), StringCodec.INSTANCE)
                .getAllAsync(java.util.Set.of(MetaFields.COMPUTED_AT, MetaFields.REVALIDATED_AT)));
        present.put(key, batch.getBucket(key, StringCodec.INSTANCE).isExistsAsync());
      }
      batch.execute();
      Map<String, Long> times = new java.util.HashMap<>();
      for (String key : keys) {
        if (!present.get(key).toCompletableFuture().join()) {
          continue;
        }
        Map<String, String> meta = metas.get(key).toCompletableFuture().join();
        Instant computed = instant(meta.get(MetaFields.COMPUTED_AT));
        Instant revalidated = instant(meta.get(MetaFields.REVALIDATED_AT));
        Instant latest = computed == null ? revalidated : revalidated == null || computed.isAfter(revalidated) ? computed : revalidated;
        if (latest != null) {
          times.put(key, latest.toEpochMilli());
        }
      }
      return times;
    } catch (RedisException e) {
      throw unavailable("value times of " + keys.size() + " keys", e);
    }
  }

  @Override
  public Optional<KeyState> state(String key) {
    reachability.require("RedisCacheStore.state");
    try {
      RBatch batch = redisson.createBatch();
      var metaFuture = batch.<String, String>getMap(CacheKeys.metaKey(key), StringCodec.INSTANCE).readAllMapAsync();
      var ttlFuture = batch.getBucket(key, StringCodec.INSTANCE).remainTimeToLiveAsync();
      batch.execute();
      Map<String, String> meta = metaFuture.toCompletableFuture().join();
      long pttl = ttlFuture.toCompletableFuture().join();
      boolean present = pttl != -2;
      if (meta.isEmpty() && !present) {
        return Optional.empty();
      }
      return Optional.of(
          new KeyState(
              present,
              pttl >= 0 ? Duration.ofMillis(pttl) : null,
              instant(meta.get("computedAt")),
              meta.containsKey("delta") ? Duration.ofMillis(Long.parseLong(meta.get("delta"))) : null,
              instant(meta.get("expiresAt")),
              meta.containsKey("epoch")
                  ? new Fence(Long.parseLong(meta.get("epoch")), Long.parseLong(meta.get("token")))
                  : null,
              meta.containsKey("size") ? Long.parseLong(meta.get("size")) : null,
              meta.get("error"),
              meta.get("errorKind"),
              instant(meta.get("errorAt")),
              meta.containsKey("failures") ? Integer.parseInt(meta.get("failures")) : 0,
              durations(meta.get(MetaFields.RECENT)),
              instant(meta.get(MetaFields.REVALIDATED_AT))));
    } catch (RedisException e) {
      throw unavailable("status of key '" + key + "'", e);
    } catch (CompletionException e) {
      throw unavailable("status of key '" + key + "'", e.getCause() == null ? e : e.getCause());
    }
  }

  @Override
  public void retire(String key, long generation, boolean evict, Duration tombstone) {
    markGeneration(key, generation, evict, tombstone, "retire", (evict ? "eviction" : "tombstone") + " of key '" + key + "'");
  }

  @Override
  public void supersede(String key, long generation, Duration tombstone) {
    markGeneration(key, generation, false, tombstone, "supersede", "generation " + generation + " of key '" + key + "'");
  }

  private void markGeneration(String key, long generation, boolean evict, Duration tombstone, String mode, String what) {
    reachability.require("RedisCacheStore." + mode);
    // A retirement is sent once: run again after a replacement landed in between, it would evict
    // the replacement's value and mark its generation deleted. A supersession only raises the
    // generation, so a second run changes nothing and it may be re-sent.
    RScript scripts =
        "retire".equals(mode)
            ? RedisScripts.withoutResend(redisson, StringCodec.INSTANCE)
            : redisson.getScript(StringCodec.INSTANCE);
    try {
      scripts
          .eval(
              key,
              RScript.Mode.READ_WRITE,
              MARK_GENERATION,
              RScript.ReturnType.INTEGER,
              List.<Object>of(key, CacheKeys.metaKey(key), RedisKeyLocks.tokenCounterName(key)),
              Long.toString(generation),
              evict ? "1" : "0",
              Long.toString(tombstone.toMillis()),
              Long.toString(COUNTER_MARGIN_MILLIS),
              mode);
    } catch (RedisException e) {
      throw unavailable(what, e);
    }
  }

  private static WriteStatus status(int code) {
    return switch (code) {
      case 1 -> WriteStatus.WRITTEN;
      case 2 -> WriteStatus.COUNTER_REPAIRED;
      case 3 -> WriteStatus.REGISTRATION_GONE;
      case 4 -> WriteStatus.VALUE_GONE;
      case 5 -> WriteStatus.REGISTRATION_REPLACED;
      default -> WriteStatus.NEWER_STORED;
    };
  }

  /** Parses the metadata's comma-separated recent compute durations; empty when absent. */
  static List<Long> durations(String recent) {
    if (recent == null || recent.isEmpty()) {
      return List.of();
    }
    List<Long> samples = new ArrayList<>();
    for (String sample : recent.split(",")) {
      samples.add(Long.parseLong(sample));
    }
    return samples;
  }

  private static Instant instant(String millis) {
    return millis == null ? null : Instant.ofEpochMilli(Long.parseLong(millis));
  }

  static CacheUnavailableException unavailable(String what, Throwable cause) {
    boolean unreachable =
        cause instanceof RedisConnectionException
            || cause instanceof RedisTimeoutException
            || cause instanceof RedisRetryException;
    return new CacheUnavailableException(
        what + " failed: " + (unreachable ? "Redis unavailable" : "Redis error") + " (" + cause.getMessage() + ")",
        cause);
  }
}
