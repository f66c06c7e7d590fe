package io.refresher.cache;

import io.refresher.client.protocol.CacheKeys;
import io.refresher.refresh.KeyLocks;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-key refresh locks on Redisson's fenced lock. {@code tryLockAndGetToken(0, lease)} neither
 * waits nor subscribes to the lock's pub/sub channel (lock pub/sub at scale has saturated
 * clusters), and with an explicit lease no watchdog extends it: a holder that stalls loses the lock
 * when the lease runs out, and its late write is refused by the fence.
 */
public final class RedisKeyLocks implements KeyLocks {

  private static final Logger LOG = LoggerFactory.getLogger(RedisKeyLocks.class);

  private final RedissonClient redisson;

  public RedisKeyLocks(RedissonClient redisson) {
    this.redisson = redisson;
  }

  @Override
  public Optional<HeldLock> tryAcquire(String key, Duration lease) {
    RFencedLock lock = redisson.getFencedLock(CacheKeys.lockName(key));
    Long token;
    try {
      token = lock.tryLockAndGetToken(0, lease.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("lock of key '" + key + "'", e);
    }
    if (token == null) {
      return Optional.empty();
    }
    // Redisson locks belong to a thread; release may be called from the same thread only, so the
    // owner id is captured here and the unlock is checked against it.
    long owner = Thread.currentThread().getId();
    return Optional.of(new Held(lock, token, owner, key));
  }

  private record Held(RFencedLock lock, long token, long owner, String key) implements HeldLock {
    @Override
    public void release() {
      try {
        lock.unlockAsync(owner)
            .whenComplete(
                (ignored, error) -> {
                  if (error != null) {
                    // Expected when the lease ran out first; the lock is free or someone else's.
                    LOG.debug("unlock of key '{}' not applied: {}", key, error.getMessage());
                  }
                });
      } catch (RuntimeException e) {
        LOG.debug("unlock of key '{}' not sent: {}", key, e.getMessage());
      }
    }
  }
}
