package io.refresher.access;

import java.time.Duration;
import java.util.List;

/**
 * The hottest uncovered keys as the last sampling found them, shared by the replicas (only one
 * samples at a time): the start of a cacheability advisor ({@code GET /v1/hot/uncovered}).
 */
public interface UncoveredKeys {

  /** How many of them a sampling keeps, hottest first. */
  int KEPT = 100;

  /**
   * Replaces the list.
   *
   * @param keep how long it stays without a newer one (a sampler that stopped leaves none behind)
   */
  void replace(List<UncoveredKey> keys, Duration keep);

  /** At most {@code limit} of them, hottest first. */
  List<UncoveredKey> hottest(int limit);
}
