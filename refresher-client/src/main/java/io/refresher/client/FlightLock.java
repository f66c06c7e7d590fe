package io.refresher.client;

import io.refresher.client.driver.RedisDriver;
import io.refresher.client.driver.RedisScript;
import io.refresher.client.protocol.CacheKeys;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The cross-process single-flight lock of a key: a plain {@code SET NX PX} string under {@link
 * CacheKeys#flightLockName}, holding a random token so that only its holder deletes it. The lease
 * bounds how long a holder that died keeps others waiting.
 */
final class FlightLock {

  /** KEYS: lock. ARGV: token. Deletes the lock only if it is still ours (the lease may have run out). */
  static final RedisScript RELEASE =
      RedisScript.writing(
          "release",
          """
      if redis.call('GET', KEYS[1]) == ARGV[1] then
        return redis.call('DEL', KEYS[1])
      end
      return 0
      """,
          RedisScript.Reply.INTEGER);

  private final RedisDriver driver;
  private final Duration lease;

  FlightLock(RedisDriver driver, Duration lease) {
    this.driver = driver;
    this.lease = lease;
  }

  /** The token of the lock just taken, or empty when someone holds it. Does not wait. */
  Optional<String> tryAcquire(String key) {
    String token = UUID.randomUUID().toString();
    String lock = CacheKeys.flightLockName(key);
    // A lock holding this call's token is this call's: a library may re-send a SET NX whose reply
    // was late (Redisson with retryAttempts above 0), and the second send finds the first's lock.
    boolean acquired = driver.setIfAbsent(lock, token, lease) || token.equals(driver.get(lock));
    return acquired ? Optional.of(token) : Optional.empty();
  }

  void release(String key, String token) {
    String lock = CacheKeys.flightLockName(key);
    driver.eval(RELEASE, List.of(lock), List.of(token));
  }
}
