package io.refresher.http;

import com.codahale.metrics.MetricRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The HTTP clients of the configured endpoints ({@code httpEndpoints:}), one connection pool each
 * ({@link EndpointClient}), and the timer that ends requests at their source's timeout ({@link
 * RequestDeadlines}). Made once at start; closed at stop, which ends requests still in flight.
 */
public final class HttpEndpoints implements AutoCloseable {

  private final Map<String, EndpointClient> clients;
  private final RequestDeadlines deadlines;

  private HttpEndpoints(Map<String, EndpointClient> clients, RequestDeadlines deadlines) {
    this.clients = clients;
    this.deadlines = deadlines;
  }

  /**
   * @param metrics where each endpoint's metrics go, under {@code refresher.http.<endpoint>.}
   * @throws IllegalStateException when an endpoint's CA file cannot be read (naming it)
   */
  public static HttpEndpoints create(Map<String, HttpEndpointSettings> endpoints, MetricRegistry metrics) {
    Map<String, EndpointClient> clients = new LinkedHashMap<>();
    try {
      for (HttpEndpointSettings settings : endpoints.values()) {
        clients.put(settings.name(), EndpointClient.open(settings, metrics));
      }
    } catch (RuntimeException e) {
      clients.values().forEach(EndpointClient::close);
      throw e;
    }
    return new HttpEndpoints(clients, new RequestDeadlines());
  }

  /** The client of the named endpoint; empty when no endpoint has that name. */
  Optional<EndpointClient> endpoint(String name) {
    return Optional.ofNullable(clients.get(name));
  }

  RequestDeadlines deadlines() {
    return deadlines;
  }

  @Override
  public void close() {
    clients.values().forEach(EndpointClient::close);
    deadlines.close();
  }
}
