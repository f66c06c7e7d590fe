package io.refresher.cache;

import io.refresher.client.protocol.CacheKeys;
import java.util.concurrent.CompletionException;
import io.refresher.refresh.CacheStore;
import io.refresher.refresh.CacheUnavailableException;
import io.refresher.refresh.Fence;
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
   * KEYS: value, meta. ARGV: value, physical TTL ms, epoch, token, computedAt, delta, expiresAt,
   * history size. Returns {written (0/1), failures the write cleared, recent compute durations}.
   * The recent durations ride along in the same hash (comma-separated, oldest first), so the
   * adaptive TTR needs no extra round trip.
   */
  static final String WRITE =
      """
      local stored = redis.call('HMGET', KEYS[2], 'epoch', 'token', 'failures', 'recent')
      local epoch = tonumber(ARGV[3])
      local token = tonumber(ARGV[4])
      """
          + fenceRefusal("{0, 0, ''}")
          + """
      local samples = {}
      if stored[4] then
        for sample in string.gmatch(stored[4], '[^,]+') do samples[#samples + 1] = sample end
      end
      samples[#samples + 1] = ARGV[6]
      local keep = tonumber(ARGV[8])
      local recent = table.concat(samples, ',', math.max(1, #samples - keep + 1), #samples)
      redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
      redis.call('DEL', KEYS[2])
      redis.call('HSET', KEYS[2], 'epoch', ARGV[3], 'token', ARGV[4], 'computedAt', ARGV[5],
        'delta', ARGV[6], 'expiresAt', ARGV[7], 'size', string.len(ARGV[1]), 'recent', recent)
      redis.call('PEXPIRE', KEYS[2], ARGV[2])
      return {1, tonumber(stored[3] or '0'), recent}
      """;

  /**
   * KEYS: meta. ARGV: epoch, token, kind, error, at, TTL ms if new. Returns the failure count, or
   * 0 when a newer fence is stored.
   */
  static final String RECORD_FAILURE =
      """
      local stored = redis.call('HMGET', KEYS[1], 'epoch', 'token')
      local epoch = tonumber(ARGV[1])
      local token = tonumber(ARGV[2])
      """
          + fenceRefusal("0")
          + """
      local existed = redis.call('EXISTS', KEYS[1])
      redis.call('HSET', KEYS[1], 'epoch', ARGV[1], 'token', ARGV[2], 'errorKind', ARGV[3],
        'error', ARGV[4], 'errorAt', ARGV[5])
      local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
      if existed == 0 then
        redis.call('PEXPIRE', KEYS[1], ARGV[6])
      end
      return failures
      """;

  private static final int MAX_ERROR_LENGTH = 500;

  /**
   * The fencing rule, shared by every script that writes a key's metadata: with {@code stored}
   * holding the stored epoch and token, return {@code refusal} when the stored fence is newer
   * than {@code (epoch, token)}.
   */
  private static String fenceRefusal(String refusal) {
    return """
        if stored[1] then
          local storedEpoch = tonumber(stored[1])
          local storedToken = tonumber(stored[2])
          if storedEpoch > epoch or (storedEpoch == epoch and storedToken > token) then
            return %s
          end
        end
        """
        .formatted(refusal);
  }

  private final RedissonClient redisson;

  public RedisCacheStore(RedissonClient redisson) {
    this.redisson = redisson;
  }

  @Override
  public WriteResult write(
      String key, String value, Fence fence, ValueMeta meta, Duration physicalTtl, int history) {
    try {
      List<Object> result =
          redisson
              .getScript(StringCodec.INSTANCE)
              .eval(
                  key,
                  RScript.Mode.READ_WRITE,
                  WRITE,
                  RScript.ReturnType.MULTI,
                  List.<Object>of(key, CacheKeys.metaKey(key)),
                  value,
                  Long.toString(physicalTtl.toMillis()),
                  Long.toString(fence.epoch()),
                  Long.toString(fence.token()),
                  Long.toString(meta.computedAt().toEpochMilli()),
                  Long.toString(meta.computeDuration().toMillis()),
                  Long.toString(meta.expiresAt().toEpochMilli()),
                  Integer.toString(history));
      boolean written = ((Number) result.get(0)).longValue() == 1L;
      return new WriteResult(
          written, ((Number) result.get(1)).intValue(), written ? durations((String) result.get(2)) : List.of());
    } catch (RedisException e) {
      throw unavailable("write of key '" + key + "'", e);
    }
  }

  @Override
  public int recordFailure(
      String key, Fence fence, String kind, String error, Instant at, Duration metaTtlIfNew) {
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
                  List.<Object>of(CacheKeys.metaKey(key)),
                  Long.toString(fence.epoch()),
                  Long.toString(fence.token()),
                  kind,
                  message,
                  Long.toString(at.toEpochMilli()),
                  Long.toString(metaTtlIfNew.toMillis()));
      return failures.intValue();
    } catch (RedisException e) {
      throw unavailable("failure record of key '" + key + "'", e);
    }
  }

  @Override
  public Optional<KeyState> state(String key) {
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
              durations(meta.get(MetaFields.RECENT))));
    } catch (RedisException e) {
      throw unavailable("status of key '" + key + "'", e);
    } catch (CompletionException e) {
      throw unavailable("status of key '" + key + "'", e.getCause() == null ? e : e.getCause());
    }
  }

  @Override
  public void evict(String key) {
    try {
      redisson.getKeys().delete(key, CacheKeys.metaKey(key));
    } catch (RedisException e) {
      throw unavailable("eviction of key '" + key + "'", e);
    }
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
