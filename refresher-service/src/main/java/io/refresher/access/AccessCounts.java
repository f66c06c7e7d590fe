package io.refresher.access;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The reads applications reported, per unix second (the access-counting protocol in {@code
 * docs/protocol.md}). Every method throws {@code CacheUnavailableException} when the counters
 * cannot be reached.
 */
public interface AccessCounts {

  /** Reads per key reported for one second, summed over all shards. */
  Map<String, Long> read(long unixSecond);

  /**
   * Reads per key for each of the given seconds, summed over all shards; seconds without reads map
   * to an empty map. An implementation may read them all in one round trip, so their counts are on
   * the heap together: callers ask for a few seconds at a time (the sampler for {@code
   * HotKeyTracker.SECONDS_PER_READ}).
   */
  default Map<Long, Map<String, Long>> readAll(List<Long> unixSeconds) {
    Map<Long, Map<String, Long>> all = new LinkedHashMap<>();
    for (long second : unixSeconds) {
      all.put(second, read(second));
    }
    return all;
  }

  /** Deletes consumed seconds (they would expire on their own; this frees memory sooner). */
  void delete(Collection<Long> unixSeconds);
}
