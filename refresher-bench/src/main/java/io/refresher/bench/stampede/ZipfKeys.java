package io.refresher.bench.stampede;

import java.util.SplittableRandom;

/**
 * Zipf-distributed ranks 1..n: rank r is chosen with probability proportional to 1 / r^s. Rank 1
 * is the most read; the first {@code hot} ranks are the hot head.
 */
final class ZipfKeys {

  private final double[] cumulative;
  private final int hot;

  ZipfKeys(int n, double exponent, int hot) {
    this.cumulative = new double[n];
    this.hot = hot;
    double sum = 0;
    for (int r = 1; r <= n; r++) {
      sum += 1.0 / Math.pow(r, exponent);
      cumulative[r - 1] = sum;
    }
    for (int i = 0; i < n; i++) {
      cumulative[i] /= sum;
    }
  }

  /** A rank, 1..n. */
  int next(SplittableRandom random) {
    double u = random.nextDouble();
    int low = 0;
    int high = cumulative.length - 1;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (cumulative[mid] < u) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low + 1;
  }

  int size() {
    return cumulative.length;
  }

  boolean isHot(int rank) {
    return rank <= hot;
  }

  int hot() {
    return hot;
  }

  /** The share of all reads that go to the hot head. */
  double hotShare() {
    return cumulative[hot - 1];
  }

  /** H(n, s) = sum over r of 1 / r^s. */
  static double harmonic(int n, double exponent) {
    double sum = 0;
    for (int r = 1; r <= n; r++) {
      sum += 1.0 / Math.pow(r, exponent);
    }
    return sum;
  }
}
