package io.refresher.metrics;

import static com.codahale.metrics.MetricRegistry.name;

import com.codahale.metrics.MetricRegistry;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * Garbage collections and their total time, per collector, as counters: {@code
 * refresher.jvm.gc.<collector>.collections} and {@code .time-ms}, exported to Prometheus as {@code
 * refresher_jvm_gc_collections_total} and {@code refresher_jvm_gc_time_ms_total} with a {@code gc}
 * label ({@link PrometheusEndpoint}).
 *
 * <p>Dropwizard's own {@code jvm.gc.*} metrics are gauges of the same totals; a dashboard's {@code
 * rate()} needs counters (a gauge falling to 0 at a restart reads as a drop, not a reset). The
 * collectors' names depend on the one the JVM chose (G1 on a server-class machine, Serial in a
 * container below 2 CPUs or 1792 MB), hence a label rather than a name per collector.
 */
public final class JvmGcMetrics {

  private JvmGcMetrics() {}

  public static void register(MetricRegistry metrics) {
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      // "G1 Young Generation" -> G1-Young-Generation: one segment of the Dropwizard name.
      String collector = gc.getName().replaceAll("[^A-Za-z0-9_-]+", "-");
      SuppliedCounter.register(
          metrics, name("refresher.jvm.gc", collector, "collections"), () -> Math.max(0, gc.getCollectionCount()));
      SuppliedCounter.register(
          metrics, name("refresher.jvm.gc", collector, "time-ms"), () -> Math.max(0, gc.getCollectionTime()));
    }
  }
}
