package io.refresher.bench.stampede;

/**
 * The values the source computes, as {@code bench_compute} returns them: {@code
 * <strategy>|<id>|<computedAtMicros>|<result>}. The compute time (wall clock, microseconds, taken
 * by PostgreSQL when the computation ended) is what tells a read that waited for the source from
 * one that found its value in a cache.
 */
final class SourceValues {

  private SourceValues() {}

  /** A value the bench writes at warm-up, as if computed at {@code computedAtMicros}. */
  static String warm(String strategy, int rank, long computedAtMicros) {
    return strategy + "|" + rank + "|" + computedAtMicros + "|warm";
  }

  /** The compute time of a value, or Long.MIN_VALUE if it is not one of the source's. */
  static long computedAtMicros(String value) {
    int first = value.indexOf('|');
    int second = first < 0 ? -1 : value.indexOf('|', first + 1);
    int third = second < 0 ? -1 : value.indexOf('|', second + 1);
    if (third < 0) {
      return Long.MIN_VALUE;
    }
    try {
      return Long.parseLong(value, second + 1, third, 10);
    } catch (NumberFormatException e) {
      return Long.MIN_VALUE;
    }
  }
}
