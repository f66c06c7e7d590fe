package io.refresher.refresh;

import java.time.Duration;
import java.util.Arrays;

/**
 * This replica's recent scheduling lag (how late refreshes start after their due time), as the
 * p99 of the last {@value #WINDOW} observations. One of the adaptive TTR's inputs: a replica that
 * runs late must start its refreshes earlier.
 */
public final class LagTracker {

  static final int WINDOW = 1024;

  private final long[] samples = new long[WINDOW];
  private int next;
  private int count;
  private long cachedAtCount = -1;
  private long cachedP99;
  private long recorded;

  public synchronized void record(Duration lag) {
    samples[next] = Math.max(0, lag.toMillis());
    next = (next + 1) % WINDOW;
    count = Math.min(WINDOW, count + 1);
    recorded++;
  }

  /** The p99 of the recent lags; zero before the first observation. */
  public synchronized Duration p99() {
    if (count == 0) {
      return Duration.ZERO;
    }
    // Sorting 1024 longs per refresh would be wasteful; recompute every 64 observations.
    if (cachedAtCount < 0 || recorded - cachedAtCount >= 64) {
      long[] copy = Arrays.copyOf(samples, count);
      Arrays.sort(copy);
      cachedP99 = copy[Math.min(count - 1, (int) Math.ceil(0.99 * count) - 1)];
      cachedAtCount = recorded;
    }
    return Duration.ofMillis(cachedP99);
  }
}
