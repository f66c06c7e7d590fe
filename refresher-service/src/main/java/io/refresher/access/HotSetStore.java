package io.refresher.access;

import java.util.Collection;
import java.util.Map;

/**
 * The hot set, shared by all replicas: each hot key with the last time its rate was at or above
 * the threshold. Every method throws {@code CacheUnavailableException} when the store cannot be
 * reached.
 */
public interface HotSetStore {

  /** Every hot key with its last-hot time (epoch ms). */
  Map<String, Long> all();

  /** Sets last-hot times (adding keys) and removes keys, together. */
  void update(Map<String, Long> lastHotAt, Collection<String> removed);
}
