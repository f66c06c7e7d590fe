package io.refresher.metrics;

import com.codahale.metrics.Counting;
import com.codahale.metrics.Metered;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricFilter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Exports Dropwizard counters and meters whose names carry a variable part as one Prometheus
 * counter with labels: {@code refresher.source.<source>.failed.<kind>} as {@code
 * refresher_source_failures_total{source="...", kind="..."}}, and so on ({@link #FAMILIES}).
 *
 * <p>One Prometheus name per source and kind cannot be summed: {@code rate()} drops the name, and
 * the series of several names that differ only by it are then refused as duplicates. The exporter's
 * own label mapping ({@code CustomLabelMapper}) does not help: it turns each Dropwizard metric into
 * a family of its own, and two families of one name fail the whole scrape ("duplicate metric
 * name"). So these metrics are left out of {@code DropwizardExports} ({@link #notLabelled()}) and
 * collected here, one family with a data point per metric. A family that has no metric yet (no
 * failure so far) is not exported at all.
 */
final class LabelledCounters implements MultiCollector {

  /** A Dropwizard name pattern (each group a label value) and the Prometheus name it becomes. */
  record Family(Pattern dropwizardName, String prometheusName, List<String> labels, String help) {}

  // Segments are dot-free: source, datasource and collector names have no dots.
  static final List<Family> FAMILIES =
      List.of(
          new Family(
              Pattern.compile("refresher\\.source\\.([^.]+)\\.failed\\.([^.]+)"),
              "refresher_source_failures",
              List.of("source", "kind"),
              "Failed refreshes by source and failure kind (refresher.source.<source>.failed.<kind>)"),
          new Family(
              Pattern.compile("refresher\\.datasource\\.([^.]+)\\.throttled"),
              "refresher_datasource_throttled",
              List.of("datasource"),
              "Refreshes that gave up waiting for the datasource's load bound (refresher.datasource.<name>.throttled)"),
          new Family(
              Pattern.compile("refresher\\.jvm\\.gc\\.([^.]+)\\.collections"),
              "refresher_jvm_gc_collections",
              List.of("gc"),
              "Garbage collections by collector"),
          new Family(
              Pattern.compile("refresher\\.jvm\\.gc\\.([^.]+)\\.time-ms"),
              "refresher_jvm_gc_time_ms",
              List.of("gc"),
              "Milliseconds spent in garbage collection by collector"));

  private final MetricRegistry metrics;

  LabelledCounters(MetricRegistry metrics) {
    this.metrics = metrics;
  }

  /** The filter for {@code DropwizardExports}: every metric this collector does not export. */
  static MetricFilter notLabelled() {
    return (name, metric) -> FAMILIES.stream().noneMatch(family -> family.dropwizardName().matcher(name).matches());
  }

  @Override
  public MetricSnapshots collect() {
    List<MetricSnapshot> snapshots = new ArrayList<>();
    for (Family family : FAMILIES) {
      CounterSnapshot.Builder builder = CounterSnapshot.builder().name(family.prometheusName()).help(family.help());
      boolean any = false;
      for (Map.Entry<String, Metric> entry : metrics.getMetrics().entrySet()) {
        Matcher matcher = family.dropwizardName().matcher(entry.getKey());
        // Counters and meters only; a timer is Counting too, but its count is not this family's.
        if (!matcher.matches() || !(entry.getValue() instanceof Counting counting) || entry.getValue() instanceof Timer) {
          continue;
        }
        String[] values = new String[family.labels().size()];
        for (int i = 0; i < values.length; i++) {
          values[i] = matcher.group(i + 1);
        }
        builder.dataPoint(
            CounterSnapshot.CounterDataPointSnapshot.builder()
                .labels(Labels.of(family.labels().toArray(String[]::new), values))
                .value(counting.getCount())
                .build());
        any = true;
      }
      if (any) {
        snapshots.add(builder.build());
      }
    }
    return new MetricSnapshots(snapshots);
  }

  @Override
  public List<String> getPrometheusNames() {
    return FAMILIES.stream().map(Family::prometheusName).toList();
  }
}
