package io.refresher.bench.stampede;

import java.util.SplittableRandom;

/**
 * An open-loop schedule, computed before the run: Poisson arrivals at a fixed rate (exponential
 * gaps), each with the rank it reads and the application instance that serves it. Nothing a
 * reader does moves it.
 */
final class Arrivals {

  private final long[] offsetNanos;
  private final int[] ranks;
  private final int instances;

  private Arrivals(long[] offsetNanos, int[] ranks, int instances) {
    this.offsetNanos = offsetNanos;
    this.ranks = ranks;
    this.instances = instances;
  }

  /** Arrivals at {@code perSecond} over {@code durationNanos}, from offset 0. */
  static Arrivals poisson(double perSecond, long durationNanos, ZipfKeys keys, int instances, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int capacity = (int) Math.min(Integer.MAX_VALUE - 8, (long) (perSecond * durationNanos / 1e9 * 1.2) + 1_000);
    long[] offsets = new long[capacity];
    int[] ranks = new int[capacity];
    int n = 0;
    double t = 0;
    while (true) {
      t += -Math.log(1.0 - random.nextDouble()) / perSecond * 1e9;
      if (t >= durationNanos || n == capacity) {
        break;
      }
      offsets[n] = (long) t;
      ranks[n] = keys.next(random);
      n++;
    }
    return new Arrivals(java.util.Arrays.copyOf(offsets, n), java.util.Arrays.copyOf(ranks, n), instances);
  }

  int size() {
    return ranks.length;
  }

  long offsetNanos(int i) {
    return offsetNanos[i];
  }

  int rank(int i) {
    return ranks[i];
  }

  /** The instance that serves arrival i (round robin, like a load balancer). */
  int instance(int i) {
    return i % instances;
  }
}
