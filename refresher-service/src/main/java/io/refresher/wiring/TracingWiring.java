package io.refresher.wiring;

import io.dropwizard.core.setup.Environment;
import io.opentelemetry.api.OpenTelemetry;
import io.refresher.api.RequestTracing;
import io.refresher.refresh.RefreshTracing;
import io.refresher.tracing.OpenTelemetryRefreshTracing;

/**
 * Traces (issue 22): the refresh path's spans ({@link OpenTelemetryRefreshTracing}) and a server
 * span per admin request ({@link RequestTracing}), from the OpenTelemetry the application built
 * ({@code tracing:}; a no-op while off, and then the refresh path is given {@link
 * RefreshTracing#NONE}, not even the no-op's calls).
 */
record TracingWiring(RefreshTracing refreshes) {

  static TracingWiring wire(Environment environment, OpenTelemetry telemetry, boolean enabled) {
    if (!enabled) {
      return new TracingWiring(RefreshTracing.NONE);
    }
    environment.jersey().register(new RequestTracing(telemetry));
    return new TracingWiring(new OpenTelemetryRefreshTracing(telemetry));
  }
}
