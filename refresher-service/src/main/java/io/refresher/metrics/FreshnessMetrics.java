package io.refresher.metrics;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.refresher.refresh.FreshnessSweep;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;

/**
 * The freshness of the kept keys per source, from the last sweep this replica made ({@link
 * FreshnessSweep}), exported with a {@code source} label:
 * {@code refresher_source_oldest_value_seconds}, {@code refresher_source_past_planned_ratio},
 * {@code refresher_source_kept_keys} and {@code refresher_source_keys_without_value}. NaN when this
 * replica has no sweep newer than {@code staleAfter} (the sweeps run on one replica per firing):
 * the maximum over the replicas is the latest sweep's.
 */
public final class FreshnessMetrics {

  private final AtomicReference<FreshnessSweep.Report> latest = new AtomicReference<>();
  private final InstantSource clock;
  private final Duration staleAfter;

  public FreshnessMetrics(MetricRegistry metrics, Collection<String> sources, InstantSource clock, Duration staleAfter) {
    this.clock = clock;
    this.staleAfter = staleAfter;
    for (String source : sources) {
      register(metrics, source, "oldest-value-seconds", f -> f.oldestValueAgeMillis() / 1000.0);
      register(metrics, source, "past-planned-ratio", FreshnessSweep.SourceFreshness::pastPlannedShare);
      register(metrics, source, "kept-keys", f -> (double) f.kept());
      register(metrics, source, "keys-without-value", f -> (double) f.withoutValue());
    }
  }

  /** The report of a sweep this replica just made. */
  public void report(FreshnessSweep.Report report) {
    latest.set(report);
  }

  private void register(MetricRegistry metrics, String source, String name, ToDoubleFunction<FreshnessSweep.SourceFreshness> value) {
    metrics.register(
        MetricRegistry.name("refresher.source", source, name),
        (Gauge<Double>)
            () -> {
              FreshnessSweep.Report report = latest.get();
              if (report == null || clock.millis() - report.atMillis() > staleAfter.toMillis()) {
                return Double.NaN;
              }
              FreshnessSweep.SourceFreshness figures = report.bySource().get(source);
              // a source with no kept key: nothing old, nothing late
              return figures == null ? 0.0 : value.applyAsDouble(figures);
            });
  }
}
