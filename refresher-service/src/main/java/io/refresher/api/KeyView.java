package io.refresher.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.refresher.refresh.KeyState;
import io.refresher.refresh.RefreshService;
import io.refresher.registry.Registration;
import java.time.Instant;
import java.util.Map;

/** A registration as JSON, with its live status when asked for one key. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KeyView(
    String key,
    String source,
    Map<String, Object> params,
    String ttl,
    Instant createdAt,
    Instant updatedAt,
    Status status) {

  /** Live status from Redis; {@code statusError} says why it is missing when Redis is down. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Status(
      boolean valuePresent,
      Long valueTtlMillis,
      Instant lastRefreshAt,
      Long lastRefreshMillis,
      Instant expiresAt,
      Instant nextRefreshAt,
      String ttr,
      String version,
      Long valueBytes,
      String lastErrorKind,
      String lastError,
      Instant lastErrorAt,
      int consecutiveFailures,
      String statusError) {}

  static KeyView of(Registration registration) {
    return new KeyView(
        registration.key(),
        registration.source(),
        registration.params(),
        registration.ttl().toString(),
        registration.createdAt(),
        registration.updatedAt(),
        null);
  }

  static KeyView of(Registration registration, RefreshService.Status live) {
    KeyState state = live.state();
    Status status =
        new Status(
            state != null && state.valuePresent(),
            state != null && state.valueTtl() != null ? state.valueTtl().toMillis() : null,
            state != null ? state.computedAt() : null,
            state != null && state.computeDuration() != null ? state.computeDuration().toMillis() : null,
            state != null ? state.expiresAt() : null,
            live.nextRefreshAt(),
            live.ttr().toString(),
            state != null && state.fence() != null ? state.fence().toString() : null,
            state != null ? state.valueBytes() : null,
            state != null ? state.lastErrorKind() : null,
            state != null ? state.lastError() : null,
            state != null ? state.lastErrorAt() : null,
            state != null ? state.consecutiveFailures() : 0,
            null);
    return withStatus(registration, status);
  }

  static KeyView unavailable(Registration registration, String why) {
    return withStatus(
        registration,
        new Status(false, null, null, null, null, null, null, null, null, null, null, null, 0, why));
  }

  private static KeyView withStatus(Registration registration, Status status) {
    KeyView base = of(registration);
    return new KeyView(
        base.key(), base.source(), base.params(), base.ttl(), base.createdAt(), base.updatedAt(), status);
  }

}
