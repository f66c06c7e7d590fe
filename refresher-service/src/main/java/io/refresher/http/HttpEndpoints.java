package io.refresher.http;

import com.codahale.metrics.MetricRegistry;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.Optional;

/**
 * The HTTP clients of the configured endpoints ({@code httpEndpoints:}), one connection pool each
 * ({@link EndpointClient}), and the timer that ends requests at their source's timeout ({@link
 * RequestDeadlines}). Made once at start; closed at stop, which ends requests still in flight.
 */
public final class HttpEndpoints implements AutoCloseable {

  private final Map<String, EndpointClient> clients;
  private final RequestDeadlines deadlines;
  private final InstantSource clock;

  private HttpEndpoints(Map<String, EndpointClient> clients, RequestDeadlines deadlines, InstantSource clock) {
    this.clients = clients;
    this.deadlines = deadlines;
    this.clock = clock;
  }

  /**
   * @param metrics where each endpoint's metrics go, under {@code refresher.http.<endpoint>.}
   * @param deadlineTimer ends each request at its source's timeout (cancelled timers must leave
   *     its queue); shut down by {@link #close()}
   * @param clock this machine's: what a {@code Retry-After} date is read against when the response
   *     has no {@code Date}
   * @throws IllegalStateException when an endpoint's CA file cannot be read (naming it)
   */
  public static HttpEndpoints create(
      Map<String, HttpEndpointSettings> endpoints,
      MetricRegistry metrics,
      ScheduledThreadPoolExecutor deadlineTimer,
      InstantSource clock) {
    Map<String, EndpointClient> clients = new LinkedHashMap<>();
    try {
      for (HttpEndpointSettings settings : endpoints.values()) {
        clients.put(settings.name(), EndpointClient.open(settings, metrics));
      }
    } catch (RuntimeException e) {
      clients.values().forEach(EndpointClient::close);
      deadlineTimer.shutdownNow();
      throw e;
    }
    return new HttpEndpoints(clients, new RequestDeadlines(deadlineTimer), clock);
  }

  /** The client of the named endpoint; empty when no endpoint has that name. */
  Optional<EndpointClient> endpoint(String name) {
    return Optional.ofNullable(clients.get(name));
  }

  RequestDeadlines deadlines() {
    return deadlines;
  }

  InstantSource clock() {
    return clock;
  }

  @Override
  public void close() {
    clients.values().forEach(EndpointClient::close);
    deadlines.close();
  }
}
