package io.refresher.bench.stampede;

import org.HdrHistogram.Histogram;

/** Read latencies of a set of reads, from their intended start (milliseconds). */
record Latency(long reads, double p50, double p99, double p999, double max) {

  static final Latency NONE = new Latency(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

  /** A histogram of microseconds, 1 µs to 1 hour, 3 significant digits. */
  static Histogram histogram() {
    return new Histogram(3_600_000_000L, 3);
  }

  static void record(Histogram histogram, long latencyNanos) {
    histogram.recordValue(Math.max(1, Math.min(3_600_000_000L, latencyNanos / 1_000)));
  }

  static Latency of(Histogram histogram) {
    if (histogram.getTotalCount() == 0) {
      return NONE;
    }
    return new Latency(
        histogram.getTotalCount(),
        histogram.getValueAtPercentile(50) / 1e3,
        histogram.getValueAtPercentile(99) / 1e3,
        histogram.getValueAtPercentile(99.9) / 1e3,
        histogram.getMaxValue() / 1e3);
  }

  /** This latency over another's, figure by figure (NaN where either is missing). */
  Ratios over(Latency floor) {
    return new Ratios(p50 / floor.p50, p99 / floor.p99, p999 / floor.p999, max / floor.max);
  }

  record Ratios(double p50, double p99, double p999, double max) {}
}
