package io.refresher.refresh;

import io.refresher.failure.CacheUnavailableException;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Collects next due times from finished refreshes and writes them to the due index in batches, so
 * rescheduling costs a fraction of a round trip per refresh. Holds at most one entry per key; a
 * later time for the same key replaces an earlier one. If a flush fails, its entries are kept (unless
 * newer ones arrived) and go out with the next flush.
 */
public final class RescheduleBuffer implements Rescheduler {

  private final ConcurrentHashMap<String, Long> pending = new ConcurrentHashMap<>();
  private final DueIndex index;

  public RescheduleBuffer(DueIndex index) {
    this.index = index;
  }

  @Override
  public void reschedule(String key, Instant at) {
    pending.put(key, at.toEpochMilli());
  }

  public int pendingCount() {
    return pending.size();
  }

  /**
   * Writes everything pending.
   *
   * @throws CacheUnavailableException when the due index cannot be reached (entries are kept)
   */
  public void flush() {
    if (pending.isEmpty()) {
      return;
    }
    Map<String, Long> batch = new HashMap<>();
    for (Map.Entry<String, Long> entry : pending.entrySet()) {
      batch.put(entry.getKey(), entry.getValue());
    }
    // Remove only the entries that were copied: a newer time put meanwhile stays for the next flush.
    batch.forEach((key, at) -> pending.remove(key, at));
    try {
      index.reschedule(batch);
    } catch (CacheUnavailableException e) {
      batch.forEach(pending::putIfAbsent);
      throw e;
    }
  }
}
