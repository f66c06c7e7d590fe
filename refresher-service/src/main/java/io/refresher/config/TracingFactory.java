package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.Managed;
import io.dropwizard.util.Duration;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code tracing:} block: OpenTelemetry traces of refreshes and admin requests, sent over
 * OTLP/HTTP to {@code otlpEndpoint} (a collector, e.g. {@code http://otel-collector:4318});
 * blank (the default), tracing is off and costs nothing.
 */
public final class TracingFactory {

  private static final Logger LOG = LoggerFactory.getLogger(TracingFactory.class);

  /** The collector's OTLP/HTTP base URL; blank: off. */
  private String otlpEndpoint = "";

  @NotBlank private String serviceName = "refresher";

  /** The share of traces kept (parent-based: a caller's sampled trace is kept). */
  @DecimalMin("0.0")
  @DecimalMax("1.0")
  private double sampleRatio = 1.0;

  @NotNull private Duration exportTimeout = Duration.seconds(10);

  @JsonProperty
  public String getOtlpEndpoint() {
    return otlpEndpoint;
  }

  @JsonProperty
  public void setOtlpEndpoint(String otlpEndpoint) {
    this.otlpEndpoint = otlpEndpoint == null ? "" : otlpEndpoint.trim();
  }

  @JsonProperty
  public String getServiceName() {
    return serviceName;
  }

  @JsonProperty
  public void setServiceName(String serviceName) {
    this.serviceName = serviceName;
  }

  @JsonProperty
  public double getSampleRatio() {
    return sampleRatio;
  }

  @JsonProperty
  public void setSampleRatio(double sampleRatio) {
    this.sampleRatio = sampleRatio;
  }

  @JsonProperty
  public Duration getExportTimeout() {
    return exportTimeout;
  }

  @JsonProperty
  public void setExportTimeout(Duration exportTimeout) {
    this.exportTimeout = exportTimeout;
  }

  public boolean enabled() {
    return !otlpEndpoint.isEmpty();
  }

  /**
   * OpenTelemetry as configured: a no-op without an endpoint; else an SDK batching spans to the
   * collector, flushed and shut down when the service stops.
   */
  public OpenTelemetry build(Environment environment) {
    if (!enabled()) {
      LOG.info("tracing off (tracing.otlpEndpoint is not set)");
      return OpenTelemetry.noop();
    }
    String endpoint = otlpEndpoint.endsWith("/") ? otlpEndpoint.substring(0, otlpEndpoint.length() - 1) : otlpEndpoint;
    OtlpHttpSpanExporter exporter =
        OtlpHttpSpanExporter.builder()
            .setEndpoint(endpoint + "/v1/traces")
            .setTimeout(exportTimeout.toMilliseconds(), TimeUnit.MILLISECONDS)
            .build();
    SdkTracerProvider tracers =
        SdkTracerProvider.builder()
            .setResource(Resource.getDefault().merge(Resource.create(Attributes.builder().put("service.name", serviceName).build())))
            .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(sampleRatio)))
            .addSpanProcessor(BatchSpanProcessor.builder(exporter).build())
            .build();
    environment.lifecycle().manage(new Managed() {
      @Override
      public void stop() {
        tracers.shutdown().join(exportTimeout.toMilliseconds(), TimeUnit.MILLISECONDS);
      }
    });
    LOG.info("tracing on: spans of refreshes and admin requests to {} (OTLP/HTTP), sample ratio {}", endpoint, sampleRatio);
    return OpenTelemetrySdk.builder()
        .setTracerProvider(tracers)
        .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
        .build();
  }
}
