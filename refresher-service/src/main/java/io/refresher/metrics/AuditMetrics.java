package io.refresher.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.Collector;
import io.refresher.refresh.audit.AuditListener;
import io.refresher.refresh.audit.AuditResult;
import java.util.List;

/**
 * The consistency audit's metrics, this replica's samples (a round runs on one replica; sum over
 * the replicas): {@code refresher_audit_samples_total}, {@code _matches_total}, {@code
 * _mismatches_total} and {@code _inconclusive_total} by source and template (an empty template for
 * keys registered by themselves), {@code refresher_audit_skipped_total} by source and reason,
 * {@code refresher_audit_repairs_total} by source and outcome, the mismatches' ages as the
 * histogram {@code refresher_audit_mismatch_age_seconds} by source, and the configured objective
 * as {@code refresher_audit_objective}, which the alert compares with.
 *
 * <p>Native Prometheus metrics, not Dropwizard ones: template names may hold dots, which the
 * Dropwizard names' labels ({@link LabelledCounters}) cannot carry. So they are on {@code
 * /metrics/prometheus} only, not in the JSON at {@code /metrics}.
 */
public final class AuditMetrics implements AuditListener {

  private final Counter samples = counter("refresher_audit_samples", "Audit samples that concluded (matches and mismatches)", "source", "template");
  private final Counter matches = counter("refresher_audit_matches", "Audit samples whose served value was the source's", "source", "template");
  private final Counter mismatches =
      counter("refresher_audit_mismatches", "Audit samples whose served value differed from the source's beyond the key's refresh", "source", "template");
  private final Counter inconclusive =
      counter("refresher_audit_inconclusive", "Audit samples whose source changed while they waited (not samples)", "source", "template");
  private final Counter skipped = counter("refresher_audit_skipped", "Audit samples not taken, by reason", "source", "reason");
  private final Counter repairs = counter("refresher_audit_repairs", "Refreshes of keys the audit found wrong, by outcome", "source", "outcome");
  private final Histogram ages =
      Histogram.builder()
          .name("refresher_audit_mismatch_age_seconds")
          .help("How long a mismatching value had gone without its source agreeing, from when it was last computed or revalidated")
          .labelNames("source")
          .classicOnly()
          .classicUpperBounds(1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 24 * 3600)
          .build();
  private final Gauge objective =
      Gauge.builder().name("refresher_audit_objective").help("The share of audit samples that must match (audit.objective)").build();

  /**
   * @param auditedSources the sources of the audited datasources: their series start at 0 (an
   *     alert's {@code increase()} then counts their first samples, and a scrape names them before)
   */
  public AuditMetrics(double objective, java.util.Collection<String> auditedSources) {
    this.objective.set(objective);
    for (String source : auditedSources) {
      samples.labelValues(source, "");
      matches.labelValues(source, "");
      mismatches.labelValues(source, "");
      ages.labelValues(source);
    }
  }

  /** What {@link PrometheusEndpoint} exports beside the Dropwizard metrics. */
  public List<Collector> collectors() {
    return List.of(samples, matches, mismatches, inconclusive, skipped, repairs, ages, objective);
  }

  @Override
  public void onResult(AuditResult result) {
    String template = result.template() == null ? "" : result.template();
    switch (result.verdict()) {
      case MATCH -> {
        samples.labelValues(result.source(), template).inc();
        matches.labelValues(result.source(), template).inc();
      }
      case MISMATCH -> {
        samples.labelValues(result.source(), template).inc();
        mismatches.labelValues(result.source(), template).inc();
        ages.labelValues(result.source()).observe(result.mismatchAgeMillis() / 1000.0);
      }
      case INCONCLUSIVE -> inconclusive.labelValues(result.source(), template).inc();
    }
  }

  @Override
  public void onSkipped(String source, String reason) {
    skipped.labelValues(source, reason).inc();
  }

  @Override
  public void onRepair(String source, String outcome) {
    repairs.labelValues(source, outcome).inc();
  }

  private static Counter counter(String name, String help, String... labels) {
    return Counter.builder().name(name).help(help).labelNames(labels).build();
  }
}
