package io.refresher.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.refresher.access.HotSetView;
import io.refresher.refresh.KeyState;
import io.refresher.refresh.RefreshService;
import io.refresher.registry.Registration;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.Map;

/**
 * A registration as JSON, with its live status when asked for one key. {@code template} names the
 * template a key was derived from (absent for a key registered by itself).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KeyView(
    String key,
    String source,
    @Schema(ref = OpenApiDocument.PARAM_VALUES) Map<String, Object> params,
    String ttl,
    String policy,
    String template,
    Instant createdAt,
    Instant updatedAt,
    Status status) {

  /**
   * Live status from Redis; {@code statusError} says why it is missing when Redis is down. {@code
   * refreshing} is false when the key is not in the due index (a cold key, left to expire); {@code
   * hot} is present while the key is in the hot set.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @Schema(name = "KeyStatus")
  public record Status(
      boolean valuePresent,
      Long valueTtlMillis,
      Instant lastRefreshAt,
      Long lastRefreshMillis,
      Instant expiresAt,
      Boolean refreshing,
      Instant nextRefreshAt,
      Hot hot,
      TtrView ttr,
      String version,
      Long valueBytes,
      String lastErrorKind,
      String lastError,
      Instant lastErrorAt,
      int consecutiveFailures,
      @Schema(description = "refreshed: the last refresh computed the value; revalidated: the source said it still holds and its TTL was extended", allowableValues = {"refreshed", "revalidated"})
          String lastRefreshOutcome,
      Instant lastRevalidatedAt,
      String statusError) {}

  /** The key's place in the hot set: its access rate (reads/s) and when it was last above the threshold. */
  @Schema(name = "KeyHeat")
  public record Hot(double rate, Instant lastHotAt) {}

  static KeyView of(Registration registration) {
    return new KeyView(
        registration.key(),
        registration.source(),
        registration.params(),
        registration.ttl().toString(),
        registration.policy().jsonName(),
        registration.template(),
        registration.createdAt(),
        registration.updatedAt(),
        null);
  }

  static KeyView of(Registration registration, RefreshService.Status live, HotSetView.HotKey hot) {
    KeyState state = live.state();
    Status status =
        new Status(
            state != null && state.valuePresent(),
            state != null && state.valueTtl() != null ? state.valueTtl().toMillis() : null,
            state != null ? state.computedAt() : null,
            state != null && state.computeDuration() != null ? state.computeDuration().toMillis() : null,
            state != null ? state.expiresAt() : null,
            live.nextRefreshAt() != null,
            live.nextRefreshAt(),
            hot == null ? null : new Hot(TtrView.round(hot.rate()), Instant.ofEpochMilli(hot.lastHotAtMillis())),
            TtrView.of(live.ttr()),
            state != null && state.fence() != null ? state.fence().toString() : null,
            state != null ? state.valueBytes() : null,
            state != null ? state.lastErrorKind() : null,
            state != null ? state.lastError() : null,
            state != null ? state.lastErrorAt() : null,
            state != null ? state.consecutiveFailures() : 0,
            state == null || state.computedAt() == null ? null : state.revalidatedAt() != null ? "revalidated" : "refreshed",
            state != null ? state.revalidatedAt() : null,
            null);
    return withStatus(registration, status);
  }

  static KeyView unavailable(Registration registration, String why) {
    return withStatus(
        registration,
        new Status(false, null, null, null, null, null, null, null, null, null, null, null, null, null, 0, null, null, why));
  }

  private static KeyView withStatus(Registration registration, Status status) {
    KeyView base = of(registration);
    return new KeyView(
        base.key(),
        base.source(),
        base.params(),
        base.ttl(),
        base.policy(),
        base.template(),
        base.createdAt(),
        base.updatedAt(),
        status);
  }
}
