package io.refresher.refresh;

import java.time.Duration;

/**
 * Bounds and inputs of the adaptive TTR (see {@link AdaptiveTtr} and {@code docs/ttr.md}).
 *
 * @param initial TTR of a key without compute history (its first refreshes)
 * @param min shortest TTR
 * @param max longest TTR (the key's own {@code maxTtrFraction × ttl} may cap it further)
 * @param percentile which percentile of the key's recent compute durations counts as its compute
 *     time, in (0, 1]
 * @param history how many recent compute durations a key keeps
 * @param heatMargin extra margin for the hottest keys: the TTR is multiplied by up to {@code 1 +
 *     heatMargin}
 */
public record TtrSettings(
    Duration initial, Duration min, Duration max, double percentile, int history, double heatMargin) {

  public TtrSettings {
    if (min.compareTo(max) > 0) {
      throw new IllegalArgumentException("ttr min " + min + " exceeds max " + max);
    }
    if (!(percentile > 0 && percentile <= 1)) {
      throw new IllegalArgumentException("ttr percentile must be in (0, 1], was " + percentile);
    }
    if (history < 1) {
      throw new IllegalArgumentException("ttr history must be at least 1, was " + history);
    }
  }

  /** A fixed TTR: every key gets {@code ttr} (bounded by its TTL), whatever its history. */
  public static TtrSettings fixed(Duration ttr) {
    return new TtrSettings(ttr, ttr, ttr, 0.95, 1, 0);
  }
}
