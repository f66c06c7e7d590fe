package io.refresher.bench.throughput;

import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.UniformSnapshot;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The service's refresh-lag timer, recorded into an HdrHistogram that the benchmark reads per
 * step: every sample of the step, none of the step before (the service's own timer keeps a
 * minute, which would mix steps).
 */
final class LagRecorder implements Reservoir {

  /** Up to an hour in nanoseconds, 3 significant digits. */
  private final Recorder recorder = new Recorder(3_600_000_000_000L, 3);

  @Override
  public int size() {
    return 0;
  }

  @Override
  public void update(long nanos) {
    recorder.recordValue(Math.max(0, Math.min(nanos, 3_600_000_000_000L)));
  }

  /** Starts a new interval; the samples since the last call are dropped. */
  void reset() {
    recorder.getIntervalHistogram();
  }

  /** The samples since the last {@link #reset} or {@link #interval}. */
  Histogram interval() {
    return recorder.getIntervalHistogram();
  }

  @Override
  public Snapshot getSnapshot() {
    return new UniformSnapshot(new long[0]);
  }
}
