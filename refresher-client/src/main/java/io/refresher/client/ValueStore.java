package io.refresher.client;

import io.refresher.client.protocol.CacheKeys;
import io.refresher.client.protocol.MetaFields;
import java.util.List;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * A key's value and its metadata hash ({@link CacheKeys#metaKey}, same cluster slot), read and
 * written the way the Refresher service does: plain strings, one script per operation.
 */
final class ValueStore {

  /** KEYS: value, meta. Returns {value, delta, expiresAt, epoch}, nil for what is absent. */
  static final String READ =
      """
      local meta = redis.call('HMGET', KEYS[2], '%s', '%s', '%s')
      return {redis.call('GET', KEYS[1]), meta[1], meta[2], meta[3]}
      """
          .formatted(MetaFields.DELTA, MetaFields.EXPIRES_AT, MetaFields.EPOCH);

  /**
   * KEYS: value, meta. ARGV: value, ttl ms, computedAt, delta, expiresAt, now. Returns 1 when
   * written, 0 when refused: a value the service wrote (epoch > 0) that has not expired yet is its
   * to replace, never a client's. The service's fence (epoch, token) is kept as it is, since the
   * service compares its next write against it; a first write sets it to 0, 0.
   */
  static final String WRITE =
      """
      local stored = redis.call('HMGET', KEYS[2], '%1$s', '%2$s')
      local epoch = tonumber(stored[1] or '0') or 0
      if epoch > 0 and (tonumber(stored[2] or '0') or 0) > tonumber(ARGV[6]) then
        return 0
      end
      redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
      redis.call('HSET', KEYS[2], '%3$s', ARGV[3], '%4$s', ARGV[4], '%2$s', ARGV[5],
        '%5$s', string.len(ARGV[1]))
      if not stored[1] then
        redis.call('HSET', KEYS[2], '%1$s', '0', '%6$s', '0')
      end
      redis.call('PEXPIRE', KEYS[2], ARGV[2])
      return 1
      """
          .formatted(
              MetaFields.EPOCH,
              MetaFields.EXPIRES_AT,
              MetaFields.COMPUTED_AT,
              MetaFields.DELTA,
              MetaFields.SIZE,
              MetaFields.TOKEN);

  /** What a client writes beside a value: all times in epoch ms, durations in ms. */
  record Written(String value, long ttlMillis, long computedAt, long deltaMillis, long nowMillis) {
    long expiresAt() {
      return computedAt + ttlMillis;
    }
  }

  private final RedissonClient redisson;

  ValueStore(RedissonClient redisson) {
    this.redisson = redisson;
  }

  String get(String key) {
    return redisson.<String>getBucket(key, StringCodec.INSTANCE).get();
  }

  StoredValue read(String key) {
    List<Object> reply =
        redisson
            .getScript(StringCodec.INSTANCE)
            .eval(
                key,
                RScript.Mode.READ_ONLY,
                READ,
                RScript.ReturnType.MULTI,
                List.<Object>of(key, CacheKeys.metaKey(key)));
    return new StoredValue(
        text(reply, 0), number(reply, 1), number(reply, 2), orZero(number(reply, 3)));
  }

  /** Whether the value was written (false: refused, a fresh value of the service is there). */
  boolean write(String key, Written written) {
    Long result =
        redisson
            .getScript(StringCodec.INSTANCE)
            .eval(
                key,
                RScript.Mode.READ_WRITE,
                WRITE,
                RScript.ReturnType.INTEGER,
                List.<Object>of(key, CacheKeys.metaKey(key)),
                written.value(),
                Long.toString(written.ttlMillis()),
                Long.toString(written.computedAt()),
                Long.toString(written.deltaMillis()),
                Long.toString(written.expiresAt()),
                Long.toString(written.nowMillis()));
    return result != null && result == 1L;
  }

  private static String text(List<Object> reply, int index) {
    if (reply == null || reply.size() <= index || reply.get(index) == null) {
      return null;
    }
    return reply.get(index).toString();
  }

  /** Metadata someone garbled is treated as absent: it must not break reads. */
  private static Long number(List<Object> reply, int index) {
    String text = text(reply, index);
    if (text == null) {
      return null;
    }
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static long orZero(Long number) {
    return number == null ? 0 : number;
  }
}
