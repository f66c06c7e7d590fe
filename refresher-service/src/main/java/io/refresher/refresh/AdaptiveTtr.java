package io.refresher.refresh;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Computes each key's TTR (time-to-refresh: how long before its logical expiry a refresh starts)
 * from its own history, so a slow key starts early enough and a fast one does not refresh more
 * often than it must.
 *
 * <pre>
 *   compute   = percentile p of the key's last n compute durations
 *   lag       = p99 of this replica's recent scheduling lag
 *   retryRoom = retryBase + compute          (one failed attempt may be retried in time)
 *   heat      = 1 + heatMargin × clamp(log10(rate / hotThreshold) / 2, 0, 1)
 *   ttr       = clamp((lag + compute + retryRoom) × heat, min, min(max, maxTtrFraction × ttl))
 * </pre>
 *
 * <p>A key read 100 times more often than the hot threshold gets the full margin: a miss on it
 * costs the most. Without history (a key's first refresh) the TTR is {@code initial}, clamped the
 * same way. The formula is documented in {@code docs/ttr.md}.
 */
public final class AdaptiveTtr {

  private final TtrSettings settings;
  private final double maxTtrFraction;
  private final Duration retryBase;

  public AdaptiveTtr(TtrSettings settings, double maxTtrFraction, Duration retryBase) {
    this.settings = settings;
    this.maxTtrFraction = maxTtrFraction;
    this.retryBase = retryBase;
  }

  public TtrSettings settings() {
    return settings;
  }

  /**
   * @param recentMillis the key's recent compute durations in ms (any order; may be empty)
   * @param rate the key's access rate in reads/s, NaN when unknown
   * @param hotThreshold the rate above which a key is hot (reads/s)
   */
  public TtrDecision decide(Duration ttl, List<Long> recentMillis, Duration lag, double rate, double hotThreshold) {
    long upper = Math.min(settings.max().toMillis(), (long) (ttl.toMillis() * maxTtrFraction));
    long lower = Math.min(settings.min().toMillis(), upper);
    double heat = heatFactor(rate, hotThreshold);
    long unclamped;
    Duration compute = null;
    Duration retryRoom = null;
    if (recentMillis.isEmpty()) {
      unclamped = settings.initial().toMillis();
    } else {
      long p = percentile(recentMillis, settings.percentile());
      compute = Duration.ofMillis(p);
      retryRoom = retryBase.plusMillis(p);
      unclamped = Math.round((lag.toMillis() + p + retryRoom.toMillis()) * heat);
    }
    long ttr = Math.max(lower, Math.min(upper, unclamped));
    String limitedBy = null;
    if (unclamped > upper) {
      limitedBy = upper < settings.max().toMillis() ? "ttl" : "max";
    } else if (unclamped < lower) {
      limitedBy = "min";
    }
    return new TtrDecision(
        Duration.ofMillis(ttr),
        recentMillis.size(),
        compute,
        lag,
        retryRoom,
        rate,
        heat,
        Duration.ofMillis(unclamped),
        Duration.ofMillis(lower),
        Duration.ofMillis(upper),
        limitedBy);
  }

  double heatFactor(double rate, double hotThreshold) {
    if (Double.isNaN(rate) || rate <= 0 || hotThreshold <= 0) {
      return 1.0;
    }
    double decades = Math.log10(rate / hotThreshold) / 2;
    return 1.0 + settings.heatMargin() * Math.max(0, Math.min(1, decades));
  }

  /** Nearest-rank percentile: the smallest sample with at least {@code p} of the samples at or below it. */
  static long percentile(List<Long> samples, double p) {
    long[] sorted = samples.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }
}
