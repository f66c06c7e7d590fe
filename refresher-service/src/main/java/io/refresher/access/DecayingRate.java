package io.refresher.access;

import java.time.Duration;

/**
 * An exponentially decaying average of reads per second, kept as "forward decay" scores (Cormode
 * et al., ICDE 2009) so that a key that is not read needs no update at all.
 *
 * <p>A read at time {@code t} adds {@code exp(λ (t - L))} to its key's score, where {@code L} is
 * a landmark time shared by all keys and {@code λ = ln 2 / halfLife}. The key's rate at time
 * {@code T} is then {@code λ · score · exp(-λ (T - L))}: each read's weight has decayed by {@code
 * exp(-λ (T - t))}, and a steady {@code r} reads/s gives exactly {@code r}. Because every score
 * carries the same factor {@code exp(-λ (T - L))}, the order of scores is the order of rates, and
 * "rate ≥ threshold" is "score ≥ {@link #score}(threshold)": the hot set is a range query. Scores
 * grow with time; {@link #needsRescale} says when to multiply them all down and move the landmark
 * before doubles lose range.
 */
public final class DecayingRate {

  /** Rescale once the landmark factor passes e^30 (about 10^13); doubles reach e^709. */
  private static final double RESCALE_EXPONENT = 30;

  private final double lambdaPerMillis;

  public DecayingRate(Duration halfLife) {
    if (halfLife.isZero() || halfLife.isNegative()) {
      throw new IllegalArgumentException("half-life must be positive, was " + halfLife);
    }
    this.lambdaPerMillis = Math.log(2) / halfLife.toMillis();
  }

  /** What one read at {@code atMillis} adds to its key's score. */
  public double weight(long atMillis, long landmarkMillis) {
    return Math.exp(lambdaPerMillis * (atMillis - landmarkMillis));
  }

  /** Reads per second at {@code nowMillis} of a key with this score. */
  public double rate(double score, long nowMillis, long landmarkMillis) {
    return score * Math.exp(-lambdaPerMillis * (nowMillis - landmarkMillis)) * lambdaPerMillis * 1000;
  }

  /** The score a key needs at {@code nowMillis} to have {@code readsPerSecond}. */
  public double score(double readsPerSecond, long nowMillis, long landmarkMillis) {
    return readsPerSecond / (lambdaPerMillis * 1000) * Math.exp(lambdaPerMillis * (nowMillis - landmarkMillis));
  }

  public boolean needsRescale(long nowMillis, long landmarkMillis) {
    return lambdaPerMillis * (nowMillis - landmarkMillis) > RESCALE_EXPONENT;
  }

  /** The factor that moves all scores from landmark {@code landmarkMillis} to {@code nowMillis}. */
  public double rescaleFactor(long nowMillis, long landmarkMillis) {
    return Math.exp(-lambdaPerMillis * (nowMillis - landmarkMillis));
  }
}
