package io.refresher.source;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * A source's rule for "nothing there": a SQL source's query that returns no row, or an HTTP
 * response with one of {@code httpStatuses}, stores the not-found marker
 * ({@code io.refresher.client.protocol.NotFoundMarker}) with this shorter TTL instead of failing,
 * so that readers know the key is absent without asking the database. See {@code docs/sources.md}
 * ("Not-found values").
 *
 * @param httpStatuses the statuses that mean "not found" (HTTP sources); empty for a SQL source
 */
public record NotFound(Duration ttl, Set<Integer> httpStatuses) {

  public NotFound {
    Objects.requireNonNull(ttl, "ttl");
    httpStatuses = Set.copyOf(httpStatuses);
  }
}
