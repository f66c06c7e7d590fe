package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.refresher.source.NotFound;
import jakarta.validation.constraints.NotNull;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The {@code notFound:} block of a source: what "nothing there" stores. See {@code
 * docs/sources.md} ("Not-found values").
 *
 * <pre>
 *     notFound:
 *       ttl: 30s               # how long the marker lives (shorter than the values' TTL, usually)
 *       httpStatus: [404]      # HTTP sources: the statuses that mean "not found" (default [404])
 * </pre>
 */
public class NotFoundFactory {

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration ttl = Duration.seconds(30);

  @JsonProperty private Set<Integer> httpStatus;

  public Duration getTtl() {
    return ttl;
  }

  public void setTtl(Duration ttl) {
    this.ttl = ttl;
  }

  public Set<Integer> getHttpStatus() {
    return httpStatus;
  }

  public void setHttpStatus(Set<Integer> httpStatus) {
    this.httpStatus = httpStatus;
  }

  /** @param http whether the source is an HTTP one (its statuses default to 404) */
  public NotFound build(boolean http) {
    Set<Integer> statuses = httpStatus != null ? new LinkedHashSet<>(httpStatus) : http ? Set.of(404) : Set.of();
    return new NotFound(ttl.toJavaDuration(), statuses);
  }
}
