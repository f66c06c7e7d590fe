package io.refresher.access;

import java.util.Collection;
import java.util.Map;

/**
 * The reads applications reported, per unix second (the access-counting protocol in {@code
 * docs/protocol.md}). Every method throws {@code CacheUnavailableException} when the counters
 * cannot be reached.
 */
public interface AccessCounts {

  /** Reads per key reported for one second, summed over all shards. */
  Map<String, Long> read(long unixSecond);

  /** Deletes consumed seconds (they would expire on their own; this frees memory sooner). */
  void delete(Collection<Long> unixSeconds);
}
