package io.refresher.refresh;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * When each registered key is next due for a refresh, shared by all replicas. Times are epoch
 * milliseconds. Claiming moves a key's due time forward by a lease, so a claimed key is handed to
 * one replica only, and comes back by itself if that replica dies before rescheduling it. Every
 * method throws {@link CacheUnavailableException} when the index cannot be reached.
 */
public interface DueIndex {

  /** A key handed out by {@link #claim}, with the time it was due. */
  record DueKey(String key, long plannedAtMillis) {}

  /**
   * Claims about {@code limit} keys due at or before {@code horizonMillis}, earliest first, and
   * pushes their due time to {@code leaseUntilMillis}. An implementation split into shards may
   * return up to one key per shard more than the limit; fewer than the limit means nothing more is
   * due.
   */
  List<DueKey> claim(long horizonMillis, int limit, long leaseUntilMillis);

  /** Adds or moves a key (registration). */
  void schedule(String key, long atMillis);

  /** Moves keys that are still in the index; keys removed meanwhile stay removed. */
  void reschedule(Map<String, Long> atMillisByKey);

  /** Adds keys that are missing, leaving existing entries alone; returns how many were added. */
  int addMissing(Collection<String> keys, long atMillis);

  void remove(Collection<String> keys);

  OptionalLong plannedAt(String key);

  /** When each of {@code keys} is next due, epoch ms; keys not in the index are left out. */
  default Map<String, Long> plannedAt(List<String> keys) {
    Map<String, Long> planned = new java.util.HashMap<>();
    for (String key : keys) {
      plannedAt(key).ifPresent(at -> planned.put(key, at));
    }
    return planned;
  }

  long size();
}
