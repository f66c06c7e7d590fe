package io.refresher.metrics;

import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.core.setup.AdminEnvironment;
import io.prometheus.metrics.exporter.servlet.jakarta.PrometheusMetricsServlet;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * Serves every Dropwizard metric in the Prometheus text format at {@value #PATH} on the admin port,
 * for Kubernetes scrapers (names are sanitised: {@code refresher.refresh.lag} becomes {@code
 * refresher_refresh_lag}), except the families with a variable part in their names (a source, a
 * failure kind, a datasource, a collector), which {@link LabelledCounters} exports as one name
 * with labels: {@code refresher.source.<source>.failed.<kind>} becomes {@code
 * refresher_source_failures_total{source, kind}}. The JSON at {@code /metrics} keeps the Dropwizard
 * names.
 */
public final class PrometheusEndpoint {

  public static final String PATH = "/metrics/prometheus";

  private PrometheusEndpoint() {}

  /** @param natives metrics kept in Prometheus's own types, exported beside the Dropwizard ones */
  public static void register(MetricRegistry metrics, AdminEnvironment admin, java.util.List<io.prometheus.metrics.model.registry.Collector> natives) {
    PrometheusRegistry registry = new PrometheusRegistry();
    DropwizardExports.builder()
        .dropwizardRegistry(metrics)
        .metricFilter(LabelledCounters.notLabelled())
        .register(registry);
    registry.register(new LabelledCounters(metrics));
    natives.forEach(registry::register);
    // The JVM's metrics as the Prometheus Java client names them (jvm_memory_used_bytes{area},
    // jvm_gc_collection_seconds{gc}, jvm_threads_state{state}, process_cpu_seconds_total...), which
    // the JVM dashboards of the field read. Dropwizard's (jvm_memory_heap_used...) stay beside them
    // for one release, deprecated (docs/operations.md).
    JvmMetrics.builder().register(registry);
    admin.addServlet("prometheus", new PrometheusMetricsServlet(registry)).addMapping(PATH);
  }
}
