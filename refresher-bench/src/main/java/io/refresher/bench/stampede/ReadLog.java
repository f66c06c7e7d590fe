package io.refresher.bench.stampede;

/**
 * What every read of one strategy's schedule did, by arrival index: when it was meant to start,
 * when it started, how long from the intended start until it returned, and the compute time of
 * the value it got. Each index is written by one reader thread, and read after they all ended.
 */
final class ReadLog {

  final long[] intendedWallMicros;
  final long[] startWallMicros;
  final long[] latencyNanos;
  final long[] computedAtMicros;
  final int[] ranks;
  final boolean[] failed;
  final boolean[] done;

  ReadLog(int size) {
    intendedWallMicros = new long[size];
    startWallMicros = new long[size];
    latencyNanos = new long[size];
    computedAtMicros = new long[size];
    ranks = new int[size];
    failed = new boolean[size];
    done = new boolean[size];
  }

  int size() {
    return ranks.length;
  }

  /** Returned a value computed after the read had started: it waited for the source. */
  boolean waitedForSource(int i) {
    return !failed[i] && computedAtMicros[i] > startWallMicros[i];
  }

  /** How old the value was when the read started, in microseconds. */
  long ageMicros(int i) {
    return startWallMicros[i] - computedAtMicros[i];
  }

  /** How late the read started after its intended time (a busy pool, or a late wake-up). */
  long startLagMicros(int i) {
    return startWallMicros[i] - intendedWallMicros[i];
  }
}
