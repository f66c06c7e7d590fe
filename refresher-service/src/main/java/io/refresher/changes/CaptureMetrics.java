package io.refresher.changes;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import java.util.function.BooleanSupplier;

/**
 * The metrics of one datasource's change capture, exported with a {@code datasource} label
 * ({@code refresher_capture_*}; see {@code docs/operations.md}): whether this replica reads, the
 * row changes applied, and the replication slot's state and lag as every replica sees it.
 */
public final class CaptureMetrics implements LogCapture.Events {

  private final Counter changes;

  public CaptureMetrics(MetricRegistry metrics, String datasource, BooleanSupplier reading, SlotLag lag) {
    String prefix = "refresher.capture." + datasource + ".";
    changes = metrics.counter(prefix + "changes");
    metrics.register(prefix + "reading", (Gauge<Integer>) () -> reading.getAsBoolean() ? 1 : 0);
    metrics.register(prefix + "slot-active", (Gauge<Double>) lag::active);
    metrics.register(prefix + "slot-lag-bytes", (Gauge<Double>) lag::bytes);
    metrics.register(prefix + "slot-lag-seconds", (Gauge<Double>) lag::seconds);
  }

  @Override
  public void applied(int rowChanges) {
    changes.inc(rowChanges);
  }
}
