package io.refresher.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.refresher.refresh.RefreshTracing;
import io.refresher.refresh.Trigger;
import io.refresher.registry.Registration;

/**
 * The refresh path's steps as OpenTelemetry spans: {@code refresh} (attributes: key, source,
 * trigger, outcome), and inside it {@code source <name>} and {@code redis write}. Each span is
 * current on its thread while open: its parent is whatever is current when it starts (the admin
 * request's span for a manual refresh), and an HTTP source's request carries it as {@code
 * traceparent}.
 */
public final class OpenTelemetryRefreshTracing implements RefreshTracing {

  /** The instrumentation scope the spans are reported under. */
  public static final String SCOPE = "io.refresher";

  static final String KEY = "refresher.key";
  static final String SOURCE = "refresher.source";
  static final String TRIGGER = "refresher.trigger";
  static final String OUTCOME = "refresher.outcome";

  private final Tracer tracer;

  public OpenTelemetryRefreshTracing(OpenTelemetry telemetry) {
    this.tracer = telemetry.getTracer(SCOPE);
  }

  @Override
  public Step refresh(Registration registration, Trigger trigger) {
    return open(
        tracer.spanBuilder("refresh")
            .setSpanKind(SpanKind.INTERNAL)
            .setAttribute(KEY, registration.key())
            .setAttribute(SOURCE, registration.source())
            .setAttribute(TRIGGER, trigger.name().toLowerCase())
            .startSpan());
  }

  @Override
  public Step source(Registration registration) {
    return open(
        tracer.spanBuilder("source " + registration.source())
            .setSpanKind(SpanKind.CLIENT)
            .setAttribute(SOURCE, registration.source())
            .startSpan());
  }

  @Override
  public Step write(Registration registration) {
    return open(
        tracer.spanBuilder("redis write")
            .setSpanKind(SpanKind.CLIENT)
            .setAttribute("db.system.name", "redis")
            .setAttribute(KEY, registration.key())
            .startSpan());
  }

  private static Step open(Span span) {
    Scope scope = span.makeCurrent();
    return new Step() {
      @Override
      public void outcome(String outcome) {
        span.setAttribute(OUTCOME, outcome);
      }

      @Override
      public void failed(String kind, String message) {
        span.setStatus(StatusCode.ERROR, kind + ": " + message);
        span.setAttribute("error.type", kind);
      }

      @Override
      public void close() {
        scope.close();
        span.end();
      }
    };
  }
}
