package io.refresher.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.refresher.access.HotSetListener;
import io.refresher.access.HotSetReport;
import io.refresher.access.HotSetView;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Hot-set metrics: its size and cap ({@code refresher.hot.max-keys}), keys promoted and demoted,
 * keys the cap left out, keys read often that nothing covers, reads counted and how far the
 * counters lag behind. The counters count on the replica that ran the sampling; sum them over
 * replicas.
 */
public final class HotSetMetrics implements HotSetListener {

  private final Counter promoted;
  private final Counter demoted;
  private final Counter reads;
  private final Counter leftOutTotal;
  private final AtomicLong leftOut = new AtomicLong();
  private final AtomicLong unresolved = new AtomicLong();
  private final AtomicLong counterLag = new AtomicLong(-1);
  private final AtomicLong tracked = new AtomicLong();

  public HotSetMetrics(MetricRegistry metrics, HotSetView view, int maxHotKeys) {
    promoted = metrics.counter("refresher.hot.promoted");
    demoted = metrics.counter("refresher.hot.demoted");
    reads = metrics.counter("refresher.access.reads");
    leftOutTotal = metrics.counter("refresher.hot.left-out");
    metrics.register("refresher.hot.size", (Gauge<Integer>) view::size);
    // The cap (access.maxHotKeys), so that a dashboard can draw the size against it.
    metrics.register("refresher.hot.max-keys", (Gauge<Integer>) () -> maxHotKeys);
    metrics.register("refresher.hot.left-out-now", (Gauge<Long>) leftOut::get);
    metrics.register("refresher.hot.unresolved", (Gauge<Long>) unresolved::get);
    metrics.register("refresher.access.counter-lag-ms", (Gauge<Long>) counterLag::get);
    metrics.register("refresher.access.tracked", (Gauge<Long>) tracked::get);
  }

  @Override
  public void onTick(HotSetReport report) {
    promoted.inc(report.promoted().size());
    demoted.inc(report.demoted().size());
    reads.inc(report.readsCounted());
    leftOutTotal.inc(report.leftOutByCap());
    leftOut.set(report.leftOutByCap());
    unresolved.set(report.unresolved());
    counterLag.set(report.counterLagMillis());
    tracked.set(report.tracked());
  }
}
