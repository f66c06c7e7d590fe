package io.refresher.api;

import io.refresher.access.PatternSuggestions;
import io.refresher.access.UncoveredKey;
import io.refresher.access.UncoveredKeys;

import io.refresher.access.HotSetView;
import io.refresher.failure.CacheUnavailableException;
import io.refresher.refresh.KeyState;
import io.refresher.refresh.RefreshService;
import io.refresher.registry.InvalidRegistrationException;
import io.refresher.registry.KeyResolver;
import io.refresher.registry.Registration;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /v1/hot?limit=N}: the hottest keys, hottest first, with their access rate, TTR and
 * next refresh, as this replica's view of the hot set knows them (refreshed every sampling
 * interval); {@code GET /v1/hot/uncovered}: the hottest keys nothing covers, with the template
 * pattern that would.
 */
@Path("/v1/hot")
@Produces(MediaType.APPLICATION_JSON)
// Admin-only unless a method says otherwise: a method added without its own annotation
// cannot be reached with the read token.
@RolesAllowed(Roles.ADMIN)
public final class HotResource {

  static final int MAX_LIMIT = 1000;

  private final HotSetView hotSet;
  private final KeyResolver resolver;
  private final RefreshService refreshes;
  private final UncoveredKeys uncovered;

  public HotResource(HotSetView hotSet, KeyResolver resolver, RefreshService refreshes, UncoveredKeys uncovered) {
    this.hotSet = hotSet;
    this.resolver = resolver;
    this.refreshes = refreshes;
    this.uncovered = uncovered;
  }

  /** A hot key nothing covers: its reads/s and the template pattern that would cover it. */
  public record UncoveredView(String key, double rate, String suggestedPattern) {}

  /** The uncovered keys, hottest first, and their suggested patterns, the most read first. */
  public record UncoveredPage(List<UncoveredView> items, List<PatternSuggestions.Suggestion> patterns) {}

  @GET
  @Path("/uncovered")
  @Operation(
      operationId = "uncoveredHotKeys",
      summary = "Keys read often enough to be hot that no registration or template covers, with a suggested template pattern",
      responses = {
        @ApiResponse(responseCode = "200", description = "As the last sampling found them.", content = @Content(schema = @Schema(implementation = UncoveredPage.class))),
        @ApiResponse(responseCode = "422", ref = OpenApiDocument.INVALID),
        @ApiResponse(responseCode = "503", ref = OpenApiDocument.UNAVAILABLE)
      })
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  public UncoveredPage uncovered(@QueryParam("limit") @DefaultValue("20") String limit) {
    int size = RequestChecks.limit(limit, UncoveredKeys.KEPT);
    if (size < 1 || size > UncoveredKeys.KEPT) {
      throw new InvalidRegistrationException("limit", "must be a whole number between 1 and " + UncoveredKeys.KEPT);
    }
    List<UncoveredKey> keys = uncovered.hottest(size);
    return new UncoveredPage(
        keys.stream().map(key -> new UncoveredView(key.key(), key.rate(), PatternSuggestions.suggest(key.key()))).toList(),
        PatternSuggestions.group(keys));
  }

  /**
   * One hot key: {@code rate} in reads/s; TTR, last and next refresh when Redis could be asked.
   * {@code lastRefreshAt}: when its value was last computed or revalidated; {@code lastOutcome}:
   * {@code failed} while its latest refreshes failed ({@code consecutiveFailures} of them), else
   * {@code refreshed} or {@code revalidated}.
   */
  public record HotKeyView(
      String key,
      double rate,
      Instant lastHotAt,
      @Schema(nullable = true) String source,
      @Schema(nullable = true) String template,
      @Schema(nullable = true) Long ttrMillis,
      @Schema(nullable = true) Instant lastRefreshAt,
      @Schema(nullable = true, allowableValues = {"refreshed", "revalidated", "failed"}) String lastOutcome,
      int consecutiveFailures,
      @Schema(nullable = true) Instant nextRefreshAt,
      @Schema(nullable = true) Instant expiresAt) {}

  /** The hottest keys; {@code viewAt} is when this replica's view was last refreshed (null before the first). */
  public record HotPage(int size, double hotThreshold, @Schema(nullable = true) Instant viewAt, List<HotKeyView> items) {}

  @GET
  @Operation(
      operationId = "hotKeys",
      summary = "The hottest keys, hottest first, with their access rate, TTR and next refresh",
      responses = {
        @ApiResponse(responseCode = "200", description = "The hot set as this replica sees it.", content = @Content(schema = @Schema(implementation = HotPage.class))),
        @ApiResponse(responseCode = "422", ref = OpenApiDocument.INVALID),
        @ApiResponse(responseCode = "503", ref = OpenApiDocument.UNAVAILABLE)
      })
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  public HotPage hottest(@QueryParam("limit") @DefaultValue("20") String limit) {
    int size = RequestChecks.limit(limit, MAX_LIMIT);
    if (size < 1 || size > MAX_LIMIT) {
      throw new InvalidRegistrationException("limit", "must be a whole number between 1 and " + MAX_LIMIT);
    }
    List<HotSetView.HotKey> hottest = hotSet.hottest(size);
    Map<String, Registration> registrations =
        resolver.findAll(hottest.stream().map(HotSetView.HotKey::key).toList());
    List<HotKeyView> items = new ArrayList<>(hottest.size());
    for (HotSetView.HotKey hot : hottest) {
      Registration registration = registrations.get(hot.key());
      Long ttr = null;
      Instant next = null;
      Instant expires = null;
      Instant lastRefresh = null;
      String lastOutcome = null;
      int failures = 0;
      if (registration != null) {
        try {
          RefreshService.Status status = refreshes.status(registration);
          ttr = status.ttr().ttr().toMillis();
          next = status.nextRefreshAt();
          KeyState state = status.state();
          if (state != null) {
            expires = state.expiresAt();
            failures = state.consecutiveFailures();
            lastRefresh = latest(state.computedAt(), state.revalidatedAt());
            lastOutcome =
                failures > 0 ? "failed" : state.computedAt() == null ? null : state.revalidatedAt() != null ? "revalidated" : "refreshed";
          }
        } catch (CacheUnavailableException e) {
          // Rates come from the view; the live part is left out while Redis is unreachable.
        }
      }
      items.add(
          new HotKeyView(
              hot.key(),
              TtrView.round(hot.rate()),
              Instant.ofEpochMilli(hot.lastHotAtMillis()),
              registration == null ? null : registration.source(),
              registration == null ? null : registration.template(),
              ttr,
              lastRefresh,
              lastOutcome,
              failures,
              next,
              expires));
    }
    return new HotPage(
        hotSet.size(),
        hotSet.hotThreshold(),
        hotSet.refreshedAtMillis() == 0 ? null : Instant.ofEpochMilli(hotSet.refreshedAtMillis()),
        items);
  }

  private static Instant latest(Instant a, Instant b) {
    return a == null ? b : b == null ? a : a.isAfter(b) ? a : b;
  }
}
