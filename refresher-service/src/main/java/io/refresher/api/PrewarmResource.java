package io.refresher.api;

import io.refresher.prewarm.PrewarmStatus;
import io.refresher.prewarm.Prewarmer;
import io.refresher.refresh.EpochSource;
import io.refresher.refresh.LoadState;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code GET /v1/prewarm}: where the refill after the last Redis data loss (or the last manual
 * prewarm) stands, as the replica that leads it reports it ({@code prewarm}), and the load bound
 * of each bounded datasource as this replica sees it ({@code load}). {@code POST /v1/prewarm}: refill now
 * every popular, {@code always} or in-grace key that is missing from Redis, hottest first, within
 * the datasources' load bound: 202 with the new refill's status, or 409 with the running one's.
 */
@Path("/v1/prewarm")
@Produces(MediaType.APPLICATION_JSON)
// Admin-only unless a method says otherwise: a method added without its own annotation
// cannot be reached with the read token.
@RolesAllowed(Roles.ADMIN)
public final class PrewarmResource {

  private final Prewarmer prewarmer;
  private final EpochSource epochs;
  private final Supplier<Map<String, LoadState>> load;

  /** The refill's status, and the load bound it runs under. */
  public record PrewarmView(PrewarmStatus prewarm, Map<String, LoadState> load) {}

  public PrewarmResource(Prewarmer prewarmer, EpochSource epochs, Supplier<Map<String, LoadState>> load) {
    this.prewarmer = prewarmer;
    this.epochs = epochs;
    this.load = load;
  }

  @GET
  @Operation(
      operationId = "prewarmStatus",
      summary = "The refill after the last Redis data loss or manual prewarm, and the load bound it runs under",
      responses = {
        @ApiResponse(responseCode = "200", description = "Where the refill stands.", content = @Content(schema = @Schema(implementation = PrewarmView.class))),
        @ApiResponse(responseCode = "503", ref = OpenApiDocument.UNAVAILABLE)
      })
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  public PrewarmView status() {
    return new PrewarmView(prewarmer.status(), load.get());
  }

  @POST
  @Operation(
      operationId = "startPrewarm",
      summary = "Refill now every popular, always or in-grace key missing from Redis, hottest first",
      responses = {
        @ApiResponse(responseCode = "202", description = "Started (or finished at once: nothing was missing).", content = @Content(schema = @Schema(implementation = PrewarmView.class))),
        @ApiResponse(responseCode = "409", ref = OpenApiDocument.CONFLICT),
        @ApiResponse(responseCode = "503", ref = OpenApiDocument.UNAVAILABLE)
      })
  public Response start() {
    PrewarmStatus before = prewarmer.status();
    // Not refused on the shared record alone: a record whose leader died says "running" for ever,
    // and only the start script knows it is stale (no heartbeat for 15 s) or of an older epoch.
    PrewarmStatus started = prewarmer.startManual(epochs.currentEpoch());
    if (started.running() && "manual".equals(started.trigger()) && started.startedAt() != null
        && (before.startedAt() == null || started.startedAt().isAfter(before.startedAt()))) {
      return Response.accepted(new PrewarmView(started, load.get())).build();
    }
    if (started.running()) {
      return conflict(started);
    }
    // Nothing was missing: the refill finished as it started.
    return Response.accepted(new PrewarmView(started, load.get())).build();
  }

  private static Response conflict(PrewarmStatus running) {
    return Response.status(Response.Status.CONFLICT)
        .entity(
            ApiError.of(
                409,
                "a prewarm is already running (" + running.trigger() + ", led by " + running.leader() + ", "
                    + running.left() + " of " + running.total() + " keys left); GET /v1/prewarm follows it"))
        .build();
  }
}
