package io.refresher.metrics;

import static com.codahale.metrics.MetricRegistry.name;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.SlidingTimeWindowArrayReservoir;
import com.codahale.metrics.Timer;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.Collector;
import io.refresher.refresh.RefreshListener;
import io.refresher.refresh.RefreshOutcome;
import io.refresher.refresh.Trigger;
import io.refresher.registry.Registration;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Refresh metrics, in Prometheus's conventions (labels, base units; {@link #collectors()}, on
 * {@code /metrics/prometheus}): {@code refresher_refreshes_total{source,outcome,trigger}}, the
 * histogram {@code refresher_source_duration_seconds{source}} of compute times, and the histogram
 * {@code refresher_refresh_lag_seconds} (actual start minus planned start), and the histogram
 * {@code refresher_batch_keys{source}} of the keys each batch query computed. The alerts and the
 * dashboard read these.
 *
 * <p>The Dropwizard metrics they replace stay for one release, deprecated (docs/operations.md):
 * per source {@code refresher.source.<name>.refreshed|failed|skipped} meters and a {@code duration}
 * timer in milliseconds; overall {@code refresher.refresh.*} meters per outcome and trigger, and
 * {@code refresher.refresh.lag}, whose timer keeps every sample of the last minute.
 */
public final class RefreshMetrics implements RefreshListener {

  private final MetricRegistry metrics;
  private final Timer lag;
  private final ConcurrentHashMap<String, Meter> meters = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Timer> timers = new ConcurrentHashMap<>();
  /** Per source: when its current failure streak began on this replica; -1 when its last refresh succeeded. */
  private final ConcurrentHashMap<String, AtomicLong> failingSince = new ConcurrentHashMap<>();
  private final InstantSource clock;
  /** The sources seen so far: configured ones from the start, others at their first refresh. */
  private final java.util.Set<String> sources = ConcurrentHashMap.newKeySet();

  private final Counter refreshes =
      Counter.builder()
          .name("refresher_refreshes")
          .help("Refreshes by source, outcome (refreshed, revalidated, skipped, failed) and trigger")
          .labelNames("source", "outcome", "trigger")
          .build();
  private final Histogram sourceDuration =
      Histogram.builder()
          .name("refresher_source_duration_seconds")
          .help("How long a source took to compute a value (refreshed outcomes)")
          .labelNames("source")
          .classicOnly()
          .classicUpperBounds(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
          .build();
  private final Histogram batchKeys =
      Histogram.builder()
          .name("refresher_batch_keys")
          .help("Keys of a batch source's query (a batch refresh), by source")
          .labelNames("source")
          .classicOnly()
          .classicUpperBounds(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
          .build();
  private final Histogram lagSeconds =
      Histogram.builder()
          .name("refresher_refresh_lag_seconds")
          .help("How late refreshes start: actual start minus planned start")
          .classicOnly()
          .classicUpperBounds(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
          .build();

  public RefreshMetrics(MetricRegistry metrics) {
    this(metrics, InstantSource.system(), java.util.List.of());
  }

  /**
   * @param clock what a source's failure streak is timed with
   * @param sources the configured sources: their scheduled refreshes' series start at 0, so that
   *     a rate over them (and the alert on no refreshes) works before their first refresh
   */
  public RefreshMetrics(MetricRegistry metrics, InstantSource clock, java.util.Collection<String> sources) {
    this.metrics = metrics;
    this.clock = clock;
    this.sources.addAll(sources);
    for (String source : sources) {
      for (String outcome : OUTCOMES) {
        refreshes.labelValues(source, outcome, "scheduled");
      }
    }
    this.lag =
        metrics.timer(
            "refresher.refresh.lag",
            () -> new Timer(new SlidingTimeWindowArrayReservoir(1, TimeUnit.MINUTES)));
    // Every outcome exists from the start, at 0: a rate over it, or an alert on it, then works
    // before the first such outcome (a revalidation may come hours after start, or never).
    for (String outcome : OUTCOMES) {
      meter(name("refresher.refresh", outcome));
    }
  }

  /** The names of {@link RefreshOutcome}'s kinds. */
  private static final java.util.List<String> OUTCOMES = java.util.List.of("refreshed", "revalidated", "skipped", "failed");

  /**
   * A source's refreshes on this replica since it started, by outcome, and when its current
   * failure streak began (null while its last refresh succeeded).
   */
  public record SourceTotals(long refreshed, long revalidated, long skipped, long failed, java.time.Instant failingSince) {}

  /** Every source that has a refresh on record (or was configured at start), by name. */
  public java.util.Map<String, SourceTotals> sourceTotals() {
    java.util.Map<String, SourceTotals> totals = new java.util.TreeMap<>();
    for (String source : sources) {
      AtomicLong since = failingSince.get(source);
      long began = since == null ? -1 : since.get();
      totals.put(
          source,
          new SourceTotals(
              meter(name("refresher.source", source, "refreshed")).getCount(),
              meter(name("refresher.source", source, "revalidated")).getCount(),
              meter(name("refresher.source", source, "skipped")).getCount(),
              meter(name("refresher.source", source, "failed")).getCount(),
              began < 0 ? null : java.time.Instant.ofEpochMilli(began)));
    }
    return totals;
  }

  /** The 99th percentile of the last minute's refresh lags on this replica, in ms (0 without any). */
  public double lagP99Millis() {
    return lag.getSnapshot().get99thPercentile() / 1e6;
  }

  /** What {@link PrometheusEndpoint} exports beside the Dropwizard metrics. */
  public java.util.List<Collector> collectors() {
    return java.util.List.of(refreshes, sourceDuration, lagSeconds, batchKeys);
  }

  @Override
  public void onOutcome(Registration registration, Trigger trigger, RefreshOutcome outcome) {
    String source = registration.source();
    sources.add(source);
    String kind = outcome.name();
    refreshes.labelValues(source, kind, trigger.name().toLowerCase()).inc();
    meter(name("refresher.refresh", kind)).mark();
    meter(name("refresher.refresh.trigger", trigger.name().toLowerCase())).mark();
    meter(name("refresher.source", source, kind)).mark();
    if (outcome instanceof RefreshOutcome.Refreshed refreshed) {
      timer(name("refresher.source", source, "duration"))
          .update(refreshed.computeDuration().toNanos(), TimeUnit.NANOSECONDS);
      sourceDuration.labelValues(source).observe(refreshed.computeDuration().toNanos() / 1e9);
      streak(source).set(-1);
    } else if (outcome instanceof RefreshOutcome.Revalidated) {
      streak(source).set(-1);
    } else if (outcome instanceof RefreshOutcome.Failed failed) {
      meter(name("refresher.source", source, "failed", failed.kind().toLowerCase())).mark();
      streak(source).compareAndSet(-1, clock.millis());
    } else if (outcome instanceof RefreshOutcome.Skipped skipped) {
      meter(name("refresher.refresh.skipped", skipped.reason().name().toLowerCase())).mark();
    }
  }

  /**
   * The registry's meter of that name, looked up in this class's own map first: this runs several
   * times per refresh, and the registry's lookup checks the metric's type and listeners each time.
   */
  private Meter meter(String name) {
    Meter meter = meters.get(name);
    return meter != null ? meter : meters.computeIfAbsent(name, metrics::meter);
  }

  /**
   * The source's failure streak, with its gauge {@code refresher.source.<source>.failing-seconds}
   * (exported as {@code refresher_source_failing_seconds{source}}): how long every refresh of the
   * source on this replica has failed, 0 while the last one succeeded. A rate of failures cannot say
   * "nothing has worked for an hour"; this can, and an alert pages on it.
   */
  private AtomicLong streak(String source) {
    AtomicLong since = failingSince.get(source);
    if (since != null) {
      return since;
    }
    return failingSince.computeIfAbsent(
        source,
        name -> {
          AtomicLong created = new AtomicLong(-1);
          metrics.gauge(
              MetricRegistry.name("refresher.source", name, "failing-seconds"),
              () -> (Gauge<Double>) () -> created.get() < 0 ? 0.0 : (clock.millis() - created.get()) / 1000.0);
          return created;
        });
  }

  private Timer timer(String name) {
    Timer timer = timers.get(name);
    return timer != null ? timer : timers.computeIfAbsent(name, metrics::timer);
  }

  @Override
  public void onBatch(String source, int keys) {
    batchKeys.labelValues(source).observe(keys);
  }

  @Override
  public void onLag(Duration duration) {
    lag.update(duration.toNanos(), TimeUnit.NANOSECONDS);
    lagSeconds.observe(Math.max(0, duration.toNanos()) / 1e9); // early starts count as on time
  }
}
