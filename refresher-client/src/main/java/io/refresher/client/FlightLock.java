package io.refresher.client;

import io.refresher.client.protocol.CacheKeys;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.redisson.api.RBucket;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The cross-process single-flight lock of a key: a plain {@code SET NX PX} string under {@link
 * CacheKeys#flightLockName}, holding a random token so that only its holder deletes it. The lease
 * bounds how long a holder that died keeps others waiting.
 */
final class FlightLock {

  /** KEYS: lock. ARGV: token. Deletes the lock only if it is still ours (the lease may have run out). */
  static final String RELEASE =
      """
      if redis.call('GET', KEYS[1]) == ARGV[1] then
        return redis.call('DEL', KEYS[1])
      end
      return 0
      """;

  private final RedissonClient redisson;
  private final Duration lease;

  FlightLock(RedissonClient redisson, Duration lease) {
    this.redisson = redisson;
    this.lease = lease;
  }

  /** The token of the lock just taken, or empty when someone holds it. Does not wait. */
  Optional<String> tryAcquire(String key) {
    String token = UUID.randomUUID().toString();
    RBucket<String> lock = redisson.getBucket(CacheKeys.flightLockName(key), StringCodec.INSTANCE);
    // A lock holding this call's token is this call's: Redisson re-sends a SET NX whose reply was
    // late (with retryAttempts above 0), and the second send finds the first's lock.
    boolean acquired = lock.setIfAbsent(token, lease) || token.equals(lock.get());
    return acquired ? Optional.of(token) : Optional.empty();
  }

  void release(String key, String token) {
    String lock = CacheKeys.flightLockName(key);
    redisson
        .getScript(StringCodec.INSTANCE)
        .eval(lock, RScript.Mode.READ_WRITE, RELEASE, RScript.ReturnType.INTEGER, List.<Object>of(lock), token);
  }
}
