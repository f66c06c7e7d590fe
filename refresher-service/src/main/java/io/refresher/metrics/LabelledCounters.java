package io.refresher.metrics;

import com.codahale.metrics.Counting;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Metered;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricFilter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Exports Dropwizard counters and meters (and gauges, for the families marked so) whose names carry a variable part as one Prometheus
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
  record Family(Pattern dropwizardName, String prometheusName, List<String> labels, String help, boolean gauge) {
    Family(Pattern dropwizardName, String prometheusName, List<String> labels, String help) {
      this(dropwizardName, prometheusName, labels, help, false);
    }
  }

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
              "Milliseconds spent in garbage collection by collector"),
          new Family(
              Pattern.compile("refresher\\.source\\.([^.]+)\\.oldest-value-seconds"),
              "refresher_source_oldest_value_seconds",
              List.of("source"),
              "Age of the oldest value among the source's kept keys, seconds (last freshness sweep)",
              true),
          new Family(
              Pattern.compile("refresher\\.source\\.([^.]+)\\.past-planned-ratio"),
              "refresher_source_past_planned_ratio",
              List.of("source"),
              "Share of the source's kept keys past their planned refresh (last freshness sweep)",
              true),
          new Family(
              Pattern.compile("refresher\\.source\\.([^.]+)\\.kept-keys"),
              "refresher_source_kept_keys",
              List.of("source"),
              "Keys of the source the service keeps fresh (last freshness sweep)",
              true),
          new Family(
              Pattern.compile("refresher\\.source\\.([^.]+)\\.keys-without-value"),
              "refresher_source_keys_without_value",
              List.of("source"),
              "Kept keys of the source without a value (last freshness sweep)",
              true),
          new Family(
              Pattern.compile("refresher\\.source\\.([^.]+)\\.failing-seconds"),
              "refresher_source_failing_seconds",
              List.of("source"),
              "How long every refresh of the source has failed on this replica; 0 while its last one succeeded",
              true),
          new Family(
              Pattern.compile("refresher\\.capture\\.([^.]+)\\.changes"),
              "refresher_capture_changes",
              List.of("datasource"),
              "Row changes read from the datasource's log and applied (refresher.capture.<datasource>.changes)"),
          new Family(
              Pattern.compile("refresher\\.capture\\.([^.]+)\\.reading"),
              "refresher_capture_reading",
              List.of("datasource"),
              "1 while this replica reads the datasource's change log (refresher.capture.<datasource>.reading)",
              true),
          new Family(
              Pattern.compile("refresher\\.capture\\.([^.]+)\\.slot-active"),
              "refresher_capture_slot_active",
              List.of("datasource"),
              "1 while a reader is connected to the datasource's replication slot, 0 when none is",
              true),
          new Family(
              Pattern.compile("refresher\\.capture\\.([^.]+)\\.slot-lag-bytes"),
              "refresher_capture_slot_lag_bytes",
              List.of("datasource"),
              "WAL the datasource keeps for the replication slot: pg_current_wal_lsn() - confirmed_flush_lsn",
              true),
          new Family(
              Pattern.compile("refresher\\.capture\\.([^.]+)\\.slot-lag-seconds"),
              "refresher_capture_slot_lag_seconds",
              List.of("datasource"),
              "How long the replication slot has been behind the datasource's log (a lower bound)",
              true));

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
      if (family.gauge()) {
        gauges(family).ifPresent(snapshots::add);
        continue;
      }
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

  private java.util.Optional<MetricSnapshot> gauges(Family family) {
    GaugeSnapshot.Builder builder = GaugeSnapshot.builder().name(family.prometheusName()).help(family.help());
    boolean any = false;
    for (Map.Entry<String, Metric> entry : metrics.getMetrics().entrySet()) {
      Matcher matcher = family.dropwizardName().matcher(entry.getKey());
      if (!matcher.matches() || !(entry.getValue() instanceof Gauge<?> gauge) || !(gauge.getValue() instanceof Number number)) {
        continue;
      }
      String[] values = new String[family.labels().size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = matcher.group(i + 1);
      }
      builder.dataPoint(
          GaugeSnapshot.GaugeDataPointSnapshot.builder()
              .labels(Labels.of(family.labels().toArray(String[]::new), values))
              .value(number.doubleValue())
              .build());
      any = true;
    }
    return any ? java.util.Optional.of(builder.build()) : java.util.Optional.empty();
  }

  @Override
  public List<String> getPrometheusNames() {
    return FAMILIES.stream().map(Family::prometheusName).toList();
  }
}
