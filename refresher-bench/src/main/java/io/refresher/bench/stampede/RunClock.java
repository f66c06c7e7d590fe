package io.refresher.bench.stampede;

import java.time.Instant;

/**
 * One run's time base: the JVM's monotonic clock (schedules, latencies) tied to the wall clock in
 * microseconds, which PostgreSQL's {@code clock_timestamp()} shares on this machine (execution
 * times, values' compute times).
 */
final class RunClock {

  private final long baseNanos;
  private final long baseWallMicros;

  RunClock() {
    long before = System.nanoTime();
    Instant now = Instant.now();
    long after = System.nanoTime();
    this.baseNanos = before + (after - before) / 2;
    this.baseWallMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }

  long wallMicros(long nanoTime) {
    return baseWallMicros + (nanoTime - baseNanos) / 1_000;
  }

  long nowWallMicros() {
    return wallMicros(System.nanoTime());
  }

  long nanoTimeOfWall(long wallMicros) {
    return baseNanos + (wallMicros - baseWallMicros) * 1_000;
  }
}
