package io.refresher.metrics;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.refresher.prewarm.PrewarmStatus;
import io.refresher.prewarm.Prewarmer;

/**
 * Prewarm metrics, from the refill this replica leads (zero on the others): {@code
 * refresher.prewarm.running} (1 while running), {@code .planned} (keys the refill planned; not
 * ".total", which Prometheus reserves for counters: the exporter would strip it), {@code .done}, {@code .left},
 * {@code .failed}, {@code .skipped} (keys that left the plan: nothing could refresh them any more, or a
 * newer refill took over), {@code .keys-per-second}, and {@code refresher.prewarm.runs} (refills led since
 * start, a counter).
 */
public final class PrewarmMetrics {

  private PrewarmMetrics() {}

  public static void register(MetricRegistry metrics, Prewarmer prewarmer) {
    metrics.register("refresher.prewarm.running", (Gauge<Integer>) () -> local(prewarmer).running() ? 1 : 0);
    metrics.register("refresher.prewarm.planned", (Gauge<Long>) () -> local(prewarmer).total());
    metrics.register("refresher.prewarm.done", (Gauge<Long>) () -> local(prewarmer).done());
    metrics.register("refresher.prewarm.left", (Gauge<Long>) () -> local(prewarmer).left());
    metrics.register("refresher.prewarm.failed", (Gauge<Long>) () -> local(prewarmer).failed());
    metrics.register("refresher.prewarm.skipped", (Gauge<Long>) () -> local(prewarmer).skipped());
    metrics.register("refresher.prewarm.keys-per-second", (Gauge<Double>) () -> local(prewarmer).keysPerSecond());
    SuppliedCounter.register(metrics, "refresher.prewarm.runs", prewarmer::runs);
  }

  private static PrewarmStatus local(Prewarmer prewarmer) {
    return prewarmer.localStatus().orElse(PrewarmStatus.idle());
  }
}
