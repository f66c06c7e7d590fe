package io.refresher.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.refresher.refresh.RefreshOutcome;
import io.refresher.refresh.Trigger;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RefreshMetricsTest {

  private final AtomicLong now = new AtomicLong(1_000_000);
  private final InstantSource clock = () -> Instant.ofEpochMilli(now.get());
  private final MetricRegistry registry = new MetricRegistry();
  private final RefreshMetrics metrics = new RefreshMetrics(registry, clock, java.util.List.of("product", "idle"));
  private final Registration product =
      Registration.of("product:1", "product", Map.of(), Duration.ofHours(1), Instant.EPOCH, Instant.EPOCH, RefreshPolicy.HOT);

  private static RefreshOutcome.Failed failed() {
    return new RefreshOutcome.Failed("timeout", "took too long", Duration.ofSeconds(1), 1, Instant.EPOCH);
  }

  private static RefreshOutcome.Refreshed refreshed() {
    return new RefreshOutcome.Refreshed(Instant.EPOCH, Duration.ofMillis(5), Instant.EPOCH, Instant.EPOCH, Duration.ofSeconds(5), null);
  }

  private double failingSeconds() {
    Gauge<?> gauge = registry.getGauges().get("refresher.source.product.failing-seconds");
    return ((Number) gauge.getValue()).doubleValue();
  }

  @Test
  void failingSeconds_fromTheStreaksFirstFailure_backToZeroOnSuccess() {
    metrics.onOutcome(product, Trigger.SCHEDULED, refreshed());
    assertThat(failingSeconds()).isZero();

    metrics.onOutcome(product, Trigger.SCHEDULED, failed());
    now.addAndGet(60_000);
    metrics.onOutcome(product, Trigger.SCHEDULED, failed());
    now.addAndGet(30_000);
    assertThat(failingSeconds()).as("timed from the first failure of the streak").isEqualTo(90.0);

    metrics.onOutcome(product, Trigger.SCHEDULED, refreshed());
    assertThat(failingSeconds()).isZero();
  }

  /** The conventional names: labels, seconds, and series of every configured source from the start. */
  @Test
  void prometheusNames_labelledAndInSeconds() {
    metrics.onOutcome(product, Trigger.MANUAL, refreshed());
    metrics.onOutcome(product, Trigger.SCHEDULED, failed());
    metrics.onLag(Duration.ofMillis(1500));
    metrics.onLag(Duration.ofMillis(-20));

    io.prometheus.metrics.model.registry.PrometheusRegistry prometheus = new io.prometheus.metrics.model.registry.PrometheusRegistry();
    metrics.collectors().forEach(prometheus::register);
    String text = text(prometheus);
    assertThat(text)
        .contains("refresher_refreshes_total{outcome=\"refreshed\",source=\"product\",trigger=\"manual\"} 1.0")
        .contains("refresher_refreshes_total{outcome=\"failed\",source=\"product\",trigger=\"scheduled\"} 1.0")
        .contains("refresher_refreshes_total{outcome=\"refreshed\",source=\"idle\",trigger=\"scheduled\"} 0.0")
        .contains("refresher_source_duration_seconds_bucket{source=\"product\",le=\"0.005\"} 1")
        .contains("refresher_source_duration_seconds_sum{source=\"product\"} 0.005")
        .contains("refresher_refresh_lag_seconds_bucket{le=\"1.0\"} 1")
        .contains("refresher_refresh_lag_seconds_bucket{le=\"2.5\"} 2")
        .contains("refresher_refresh_lag_seconds_sum 1.5");
  }

  private static String text(io.prometheus.metrics.model.registry.PrometheusRegistry registry) {
    try {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      new io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter(false).write(out, registry.scrape());
      return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
