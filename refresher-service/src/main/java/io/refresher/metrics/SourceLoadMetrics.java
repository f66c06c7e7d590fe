package io.refresher.metrics;

import static com.codahale.metrics.MetricRegistry.name;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.SlidingTimeWindowArrayReservoir;
import com.codahale.metrics.Timer;
import io.refresher.redis.RedisSourceLoad;
import io.refresher.refresh.SourceLoadListener;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Metrics of the datasources' load bound, per bounded datasource: {@code
 * refresher.datasource.<name>.wait} (how long refreshes waited for their turn, the last minute),
 * {@code .throttled} (refreshes that gave up waiting and were retried later), {@code .waiting}
 * (refreshes waiting on this replica now), {@code .max-queries-per-second} and {@code
 * .max-concurrent} (the bound, 0 when unbounded).
 */
public final class SourceLoadMetrics implements SourceLoadListener {

  private final MetricRegistry metrics;

  public SourceLoadMetrics(MetricRegistry metrics) {
    this.metrics = metrics;
  }

  /** Registers the gauges of every bounded datasource. */
  public void register(RedisSourceLoad load) {
    load.bounds()
        .forEach(
            (datasource, bound) -> {
              metrics.register(name("refresher.datasource", datasource, "waiting"), (Gauge<Integer>) () -> load.waiting(datasource));
              metrics.register(
                  name("refresher.datasource", datasource, "max-queries-per-second"),
                  (Gauge<Integer>) bound::maxQueriesPerSecond);
              metrics.register(
                  name("refresher.datasource", datasource, "max-concurrent"), (Gauge<Integer>) bound::maxConcurrent);
              waitTimer(datasource);
              metrics.meter(name("refresher.datasource", datasource, "throttled"));
            });
  }

  /** Each bounded datasource's bound and wait, for {@code GET /v1/prewarm}. */
  public static java.util.Map<String, io.refresher.refresh.LoadState> view(
      MetricRegistry metrics, RedisSourceLoad load) {
    java.util.Map<String, io.refresher.refresh.LoadState> views = new java.util.TreeMap<>();
    load.bounds()
        .forEach(
            (datasource, bound) -> {
              Timer wait = metrics.getTimers().get(name("refresher.datasource", datasource, "wait"));
              com.codahale.metrics.Meter throttled = metrics.getMeters().get(name("refresher.datasource", datasource, "throttled"));
              views.put(
                  datasource,
                  new io.refresher.refresh.LoadState(
                      bound.maxQueriesPerSecond(),
                      bound.maxConcurrent(),
                      load.waiting(datasource),
                      wait == null ? 0 : wait.getSnapshot().get99thPercentile() / 1_000_000.0,
                      throttled == null ? 0 : throttled.getCount()));
            });
    return views;
  }

  @Override
  public void onAdmitted(String datasource, Duration waited) {
    waitTimer(datasource).update(waited.toNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public void onThrottled(String datasource, Duration waited) {
    waitTimer(datasource).update(waited.toNanos(), TimeUnit.NANOSECONDS);
    metrics.meter(name("refresher.datasource", datasource, "throttled")).mark();
  }

  private Timer waitTimer(String datasource) {
    return metrics.timer(
        name("refresher.datasource", datasource, "wait"),
        () -> new Timer(new SlidingTimeWindowArrayReservoir(1, TimeUnit.MINUTES)));
  }
}
