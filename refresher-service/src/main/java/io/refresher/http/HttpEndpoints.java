package io.refresher.http;

import com.codahale.metrics.MetricRegistry;
import java.util.Map;

/** The HTTP clients of the configured endpoints, one connection pool each. STUB: to be built. */
public final class HttpEndpoints implements AutoCloseable {

  public static HttpEndpoints create(Map<String, HttpEndpointSettings> endpoints, MetricRegistry metrics) {
    return new HttpEndpoints();
  }

  @Override
  public void close() {}
}
