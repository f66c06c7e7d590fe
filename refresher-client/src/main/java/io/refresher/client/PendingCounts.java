package io.refresher.client;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Read counts per key that have not reached Redis yet: exact under concurrency, and never more
 * than {@code maxKeys} keys.
 *
 * <p>Why it is exact. A count is only ever taken out of a counter by {@link #drain()}'s {@code
 * getAndSet(0)}, which takes every increment that happened before it. A drained counter is then
 * retired with {@code compareAndSet(0, RETIRED)}, which fails if any increment landed after the
 * {@code getAndSet} (the counter stays, the next drain takes those). An increment that lands on a
 * retired counter sees a negative previous value: it knows it went nowhere, removes the dead
 * counter and retries on a fresh one. So every increment is either taken by exactly one drain or
 * retried.
 *
 * <p>Drains must not overlap (the caller serialises them): only a drain retires counters, and it
 * removes what it retires before it moves on, so a drain never finds a retired counter to
 * {@code getAndSet} back to life.
 *
 * <p>Why it is bounded. A new key first reserves one of {@code maxKeys} slots ({@link #keys}) and
 * gives it back when its counter leaves the map, so {@link #pendingKeys()} counts every counter
 * in the map or about to be put there, and never exceeds the bound.
 */
final class PendingCounts {

  /** Far enough below zero that no amount of late increments brings a retired counter back to 0. */
  private static final long RETIRED = Long.MIN_VALUE / 2;

  private final ConcurrentHashMap<String, AtomicLong> counts = new ConcurrentHashMap<>();
  private final AtomicInteger keys = new AtomicInteger();
  private final int maxKeys;

  PendingCounts(int maxKeys) {
    if (maxKeys < 1) {
      throw new IllegalArgumentException("maxKeys must be at least 1, was " + maxKeys);
    }
    this.maxKeys = maxKeys;
  }

  /**
   * Adds {@code count} reads of {@code key}. Returns false, changing nothing, when the key is not
   * pending and all slots are taken.
   */
  boolean add(String key, long count) {
    while (true) {
      AtomicLong counter = counts.get(key);
      if (counter == null) {
        if (!reserveKey()) {
          return false;
        }
        AtomicLong fresh = new AtomicLong(count);
        counter = counts.putIfAbsent(key, fresh);
        if (counter == null) {
          return true;
        }
        keys.decrementAndGet();
      }
      if (counter.getAndAdd(count) >= 0) {
        return true;
      }
      // A drain retired this counter after we fetched it: our add went nowhere. Retry on a fresh one.
      removeRetired(key, counter);
    }
  }

  /** Takes every pending count out; keys with no new reads leave the map, giving back their slot. */
  Map<String, Long> drain() {
    Map<String, Long> drained = new HashMap<>();
    for (Map.Entry<String, AtomicLong> entry : counts.entrySet()) {
      AtomicLong counter = entry.getValue();
      long count = counter.getAndSet(0);
      if (count > 0) {
        drained.merge(entry.getKey(), count, Long::sum);
      }
      if (counter.compareAndSet(0, RETIRED)) {
        removeRetired(entry.getKey(), counter);
      }
    }
    return drained;
  }

  /** Keys pending (or being added): at most the bound given to the constructor. */
  int pendingKeys() {
    return keys.get();
  }

  int maxKeys() {
    return maxKeys;
  }

  private boolean reserveKey() {
    while (true) {
      int taken = keys.get();
      if (taken >= maxKeys) {
        return false;
      }
      if (keys.compareAndSet(taken, taken + 1)) {
        return true;
      }
    }
  }

  /** Both the drain and an adder that bumped into the dead counter may try; one of them wins. */
  private void removeRetired(String key, AtomicLong counter) {
    if (counts.remove(key, counter)) {
      keys.decrementAndGet();
    }
  }
}
