package io.refresher.cache;

import io.refresher.client.protocol.CacheKeys;
import io.refresher.refresh.KeyLocks;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
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
 *
 * <p><b>Acquisitions whose reply was lost.</b> A lock command that timed out on the client may
 * still run in Redis (a stalled Redis runs its queued commands when it resumes): the key would then
 * be locked for a whole lease by an owner that believes it failed, and every refresh of it skipped.
 * Such acquisitions are remembered with their owner, and {@link #releaseAbandoned()} (called every
 * dispatcher tick) releases them, owner-checked, until the lease they could hold has run out. A
 * later successful acquisition of the same key by the same owner forgets the suspicion, so a lock
 * held for real is never released by it.
 */
public final class RedisKeyLocks implements KeyLocks {

  private static final Logger LOG = LoggerFactory.getLogger(RedisKeyLocks.class);

  private final RedisReachability reachability;
  private final RedissonClient redisson;
  /** Lock name + owner thread id of acquisitions that timed out, with when their lease ends. */
  private final ConcurrentHashMap<Abandoned, Long> abandoned = new ConcurrentHashMap<>();

  private record Abandoned(String lockName, long owner) {}

  /** Releases are sent at most this often: while Redis stalls they only queue up. */
  private static final long RELEASE_EVERY_MILLIS = 250;

  private volatile long lastReleaseMillis;

  /**
   * The key of the counter Redisson's fenced lock draws the key's tokens from (its naming: the
   * prefix, then the lock's name, which always carries a hash tag, so the counter sits in the
   * key's slot). The write scripts give it a TTL: Redisson keeps it forever.
   */
  public static String tokenCounterName(String key) {
    return "redisson_lock_token:" + CacheKeys.lockName(key);
  }

  public RedisKeyLocks(RedissonClient redisson) {
    this(redisson, RedisReachability.assumed());
  }

  /** @param reachability while Redis is known to be unreachable, calls fail at once */
  public RedisKeyLocks(RedissonClient redisson, RedisReachability reachability) {
    this.reachability = reachability;
    this.redisson = redisson;
  }

  @Override
  public Optional<HeldLock> tryAcquire(String key, Duration lease) {
    reachability.require("RedisKeyLocks.tryAcquire");
    String name = CacheKeys.lockName(key);
    RFencedLock lock = redisson.getFencedLock(name);
    // Redisson locks belong to a thread; release may be called from the same thread only, so the
    // owner id is captured here and the unlock is checked against it.
    long owner = Thread.currentThread().getId();
    Long token;
    try {
      token = lock.tryLockAndGetToken(0, lease.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RedisException e) {
      abandoned.put(new Abandoned(name, owner), System.currentTimeMillis() + lease.toMillis());
      throw RedisCacheStore.unavailable("lock of key '" + key + "'", e);
    }
    if (token == null) {
      return Optional.empty();
    }
    abandoned.remove(new Abandoned(name, owner));
    return Optional.of(new Held(lock, token, owner, key));
  }

  /**
   * Releases, owner-checked and without waiting, the locks that acquisitions with a lost reply may
   * hold; forgets those whose lease has run out. Never throws.
   */
  @Override
  public void releaseAbandoned() {
    if (abandoned.isEmpty()) {
      return;
    }
    long now = System.currentTimeMillis();
    if (now - lastReleaseMillis < RELEASE_EVERY_MILLIS) {
      return;
    }
    lastReleaseMillis = now;
    abandoned.forEach(
        (suspect, leaseEnd) -> {
          if (leaseEnd <= now) {
            abandoned.remove(suspect, leaseEnd);
            return;
          }
          try {
            redisson
                .getFencedLock(suspect.lockName())
                .unlockAsync(suspect.owner())
                .whenComplete(
                    (ignored, error) -> {
                      if (error == null) {
                        LOG.debug("released lock {} taken by an acquisition whose reply was lost", suspect.lockName());
                      }
                    });
          } catch (RuntimeException e) {
            LOG.debug("lock {} not released yet: {}", suspect.lockName(), e.getMessage());
          }
        });
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
