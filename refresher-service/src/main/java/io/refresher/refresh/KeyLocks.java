package io.refresher.refresh;

import io.refresher.failure.CacheUnavailableException;
import java.time.Duration;
import java.util.Optional;

/**
 * The cluster-wide per-key refresh lock. Acquisition never waits: when another refresher holds the
 * key, the caller skips it. The lease bounds how long a crashed or paused holder can block the key;
 * the fence token makes a holder that outlived its lease harmless.
 */
public interface KeyLocks {

  /** A held lock: its fencing token, and a release that checks ownership. */
  interface HeldLock {
    long token();

    /**
     * Releases the lock if this holder still owns it; does not block, never throws. Does nothing
     * when a write already released it ({@link CacheStore#write}).
     */
    void release();
  }

  /**
   * Tries once to take the lock.
   *
   * @throws CacheUnavailableException when Redis cannot be reached
   */
  Optional<HeldLock> tryAcquire(String key, Duration lease);

  /**
   * One key's try of {@link #tryAcquireAll}: its lock, empty when another refresh holds it, or why
   * Redis could not be asked ({@code failure} set, {@code lock} empty).
   */
  record Attempt(Optional<HeldLock> lock, CacheUnavailableException failure) {}

  /**
   * Tries once to take the lock of each key (a batch refresh's keys), as {@link #tryAcquire} does
   * for one; an implementation sends them together. Never throws: a key whose try failed says so.
   *
   * @return by key, in the order given
   */
  default java.util.Map<String, Attempt> tryAcquireAll(java.util.List<String> keys, Duration lease) {
    java.util.Map<String, Attempt> attempts = new java.util.LinkedHashMap<>();
    for (String key : keys) {
      try {
        attempts.put(key, new Attempt(tryAcquire(key, lease), null));
      } catch (CacheUnavailableException e) {
        attempts.put(key, new Attempt(Optional.empty(), e));
      }
    }
    return attempts;
  }

  /**
   * How much longer the lock of a key that another refresh holds lasts at most: the rest of its
   * lease (zero if the lock is free). A holder that died or froze keeps the key for that long;
   * one that is alive releases it sooner.
   *
   * @throws CacheUnavailableException when Redis cannot be reached
   */
  default Duration remainingLease(String key) {
    return Duration.ZERO;
  }

  /**
   * Releases locks that acquisitions whose reply was lost (a timeout, a stall) may hold, so that
   * they do not block their keys for a whole lease. Called often (every dispatcher tick); cheap when
   * there are none. Never throws.
   */
  default void releaseAbandoned() {}
}
