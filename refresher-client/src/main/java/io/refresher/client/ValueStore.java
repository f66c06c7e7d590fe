package io.refresher.client;

import io.refresher.client.protocol.CacheKeys;
import io.refresher.client.protocol.MetaFields;
import io.refresher.client.driver.RedisDriver;
import io.refresher.client.driver.RedisScript;
import java.util.List;

/**
 * A key's value and its metadata hash ({@link CacheKeys#metaKey}, same cluster slot), read and
 * written the way the Refresher service does: plain strings, one script per operation.
 */
final class ValueStore {

  /**
   * Redis's clock in epoch ms, as a script reads it. The protocol's times ({@code computedAt},
   * {@code expiresAt}) are on Redis's clock, which the service follows too: a reader or writer
   * judging them by its own clock would act early or late by its clock's error.
   */
  private static final String REDIS_NOW =
      """
      local time = redis.call('TIME')
      local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
      """;

  /**
   * KEYS: value, meta. Returns {value, delta, expiresAt, epoch, Redis's time in ms}, nil for what
   * is absent.
   */
  static final RedisScript READ =
      RedisScript.readOnly(
          "read",
          REDIS_NOW
              + """
              local meta = redis.call('HMGET', KEYS[2], '%s', '%s', '%s')
              return {redis.call('GET', KEYS[1]), meta[1], meta[2], meta[3], now}
              """
                  .formatted(MetaFields.DELTA, MetaFields.EXPIRES_AT, MetaFields.EPOCH),
          RedisScript.Reply.LIST);

  /**
   * KEYS: value, meta. ARGV: value, ttl ms, delta ms. Returns 1 when written, 0 when refused.
   *
   * <ul>
   *   <li>Refused: a value the service wrote (epoch > 0) that is there and has not expired by
   *       Redis's clock is its to replace, never a client's. Without a value (evicted, by the
   *       service or by Redis) there is nothing to protect, whatever the metadata says.
   *   <li>{@code computedAt} and {@code expiresAt} are Redis's time at the write and that plus the
   *       ttl. A validator or revalidation of the service's described the value replaced: it goes.
   *   <li>The service's fence (epoch, token) and tombstone (generation, retired) are kept, since
   *       the service checks its next write against them; a first write sets the fence to 0, 0.
   *   <li>The metadata's TTL only grows: cut to the client's ttl, a fence or tombstone could expire
   *       before a refresh in flight that it must refuse.
   * </ul>
   */
  static final RedisScript WRITE =
      RedisScript.writing(
          "write",
          REDIS_NOW
              + """
          local stored = redis.call('HMGET', KEYS[2], '%1$s', '%2$s')
          local epoch = tonumber(stored[1] or '0') or 0
          if epoch > 0 and (tonumber(stored[2] or '0') or 0) > now and redis.call('EXISTS', KEYS[1]) == 1 then
            return 0
          end
          local ttl = tonumber(ARGV[2])
          redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
          redis.call('HSET', KEYS[2], '%3$s', now, '%4$s', ARGV[3], '%2$s', now + ttl,
            '%5$s', string.len(ARGV[1]))
          redis.call('HDEL', KEYS[2], '%7$s', '%8$s')
          if not stored[1] then
            redis.call('HSET', KEYS[2], '%1$s', '0', '%6$s', '0')
          end
          if redis.call('PTTL', KEYS[2]) < ttl then
            redis.call('PEXPIRE', KEYS[2], ttl)
          end
          return 1
          """
              .formatted(
                  MetaFields.EPOCH,
                  MetaFields.EXPIRES_AT,
                  MetaFields.COMPUTED_AT,
                  MetaFields.DELTA,
                  MetaFields.SIZE,
                  MetaFields.TOKEN,
                  MetaFields.VALIDATOR,
                  MetaFields.REVALIDATED_AT),
          RedisScript.Reply.INTEGER);

  /** What a client writes beside a value: durations in ms (the times are Redis's, see WRITE). */
  record Written(String value, long ttlMillis, long deltaMillis) {}

  private final RedisDriver driver;

  ValueStore(RedisDriver driver) {
    this.driver = driver;
  }

  String get(String key) {
    return driver.get(key);
  }

  StoredValue read(String key) {
    Object reply = driver.eval(READ, List.of(key, CacheKeys.metaKey(key)), List.of());
    List<?> fields = reply instanceof List<?> list ? list : List.of();
    return new StoredValue(
        text(fields, 0), number(fields, 1), number(fields, 2), orZero(number(fields, 3)), orZero(number(fields, 4)));
  }

  /** Whether the value was written (false: refused, a fresh value of the service is there). */
  boolean write(String key, Written written) {
    Object result =
        driver.eval(
            WRITE,
            List.of(key, CacheKeys.metaKey(key)),
            List.of(written.value(), Long.toString(written.ttlMillis()), Long.toString(written.deltaMillis())));
    return result instanceof Long number && number == 1L;
  }

  private static String text(List<?> reply, int index) {
    if (reply == null || reply.size() <= index || reply.get(index) == null) {
      return null;
    }
    return reply.get(index).toString();
  }

  /** Metadata someone garbled is treated as absent: it must not break reads. */
  private static Long number(List<?> reply, int index) {
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
