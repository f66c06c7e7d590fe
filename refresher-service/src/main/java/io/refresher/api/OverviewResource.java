package io.refresher.api;

import io.refresher.overview.OverviewHistory;
import io.refresher.overview.OverviewSample;
import io.refresher.refresh.EpochChange;
import io.refresher.refresh.EpochSource;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * {@code GET /v1/overview}: this replica's last minutes, for the console's overview page (refresh
 * and failure rates, lag p99, hot-set size against its cap, Redis and PostgreSQL state) and the
 * data epoch's latest change. Nothing here needs a Prometheus beside the service.
 */
@Path("/v1/overview")
@Produces(MediaType.APPLICATION_JSON)
// Admin-only unless a method says otherwise: a method added without its own annotation
// cannot be reached with the read token.
@RolesAllowed(Roles.ADMIN)
public final class OverviewResource {

  private final OverviewHistory history;
  private final Duration interval;
  private final int hotKeysCap;
  private final EpochSource epochs;
  private final Supplier<Optional<EpochChange>> latestEpochChange;

  public OverviewResource(
      OverviewHistory history, Duration interval, int hotKeysCap, EpochSource epochs, Supplier<Optional<EpochChange>> latestEpochChange) {
    this.history = history;
    this.interval = interval;
    this.hotKeysCap = hotKeysCap;
    this.epochs = epochs;
    this.latestEpochChange = latestEpochChange;
  }

  /**
   * @param intervalSeconds how far apart the samples are
   * @param keptSamples how many samples the history keeps at most
   * @param hotKeysCap {@code access.maxHotKeys}, what the hot set's size is drawn against
   * @param epoch the current data epoch
   * @param latestEpochChange the latest data loss or failover this replica saw since it started
   * @param samples oldest first, ten minutes at most
   */
  public record OverviewView(
      long intervalSeconds,
      int keptSamples,
      int hotKeysCap,
      long epoch,
      @Schema(nullable = true) EpochChange latestEpochChange,
      List<OverviewSample> samples) {}

  @GET
  @Operation(
      operationId = "overview",
      summary = "This replica's refresh rate, failures, lag, hot-set size and Redis and PostgreSQL state over the last minutes",
      responses = @ApiResponse(responseCode = "200", description = "The last minutes, oldest first.", content = @Content(schema = @Schema(implementation = OverviewView.class))))
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  public OverviewView overview() {
    return new OverviewView(
        interval.toSeconds(), history.kept(), hotKeysCap, epochs.currentEpoch(), latestEpochChange.get().orElse(null), history.samples());
  }
}
