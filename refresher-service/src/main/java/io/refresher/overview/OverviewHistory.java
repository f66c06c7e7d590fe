package io.refresher.overview;

import io.refresher.metrics.RefreshMetrics.SourceTotals;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The last minutes of this replica's figures, one {@link OverviewSample} per run, for the
 * console's overview page: it needs a few minutes of history without a Prometheus beside the
 * service. Run on a schedule (one run at a time); {@link #samples()} may be read from any thread.
 */
public final class OverviewHistory implements Runnable {

  /** What a sample is taken from. */
  public interface Readings {
    /** Refreshes by source since start. */
    Map<String, SourceTotals> totals();

    double lagP99Millis();

    int hotKeys();

    boolean redisUp();

    boolean postgresUp();
  }

  private final Readings readings;
  private final InstantSource clock;
  private final int kept;
  private final Deque<OverviewSample> samples = new ArrayDeque<>();
  private Map<String, SourceTotals> previous;
  private Instant previousAt;

  /**
   * @param kept how many samples are kept (the oldest go first)
   */
  public OverviewHistory(Readings readings, InstantSource clock, int kept) {
    if (kept < 1) {
      throw new IllegalArgumentException("kept must be at least 1");
    }
    this.readings = readings;
    this.clock = clock;
    this.kept = kept;
  }

  /** Takes a sample: the rates since the previous run (none at the first, which only records the totals). */
  @Override
  public void run() {
    Instant now = clock.instant();
    Map<String, SourceTotals> totals = readings.totals();
    if (previous != null) {
      double seconds = Math.max(1, Duration.between(previousAt, now).toMillis()) / 1000.0;
      long succeeded = 0;
      long failed = 0;
      Map<String, Long> failuresBySource = new TreeMap<>();
      for (Map.Entry<String, SourceTotals> entry : totals.entrySet()) {
        SourceTotals before = previous.getOrDefault(entry.getKey(), new SourceTotals(0, 0, 0, 0, null));
        SourceTotals after = entry.getValue();
        succeeded += after.refreshed() - before.refreshed() + after.revalidated() - before.revalidated();
        long failures = after.failed() - before.failed();
        failed += failures;
        if (failures > 0) {
          failuresBySource.put(entry.getKey(), failures);
        }
      }
      add(
          new OverviewSample(
              now,
              succeeded / seconds,
              failed / seconds,
              Map.copyOf(failuresBySource),
              readings.lagP99Millis(),
              readings.hotKeys(),
              readings.redisUp(),
              readings.postgresUp()));
    }
    previous = totals;
    previousAt = now;
  }

  private synchronized void add(OverviewSample sample) {
    samples.addLast(sample);
    while (samples.size() > kept) {
      samples.removeFirst();
    }
  }

  /** How many samples are kept at most. */
  public int kept() {
    return kept;
  }

  /** The samples kept, oldest first. */
  public synchronized List<OverviewSample> samples() {
    return new ArrayList<>(samples);
  }
}
