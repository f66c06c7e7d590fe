package io.refresher.api;

import io.refresher.refresh.ChangeFeedsReport;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.function.Supplier;

/**
 * {@code GET /v1/feeds}: the change feeds (notification channels and log capture) as this replica
 * sees them: whether it is the one listening, what it has pending, what it received, coalesced and
 * dropped since it started. ({@code /v1/changes} is the registry's change log.)
 */
@Path("/v1/feeds")
@Produces(MediaType.APPLICATION_JSON)
// Admin-only unless a method says otherwise: a method added without its own annotation
// cannot be reached with the read token.
@RolesAllowed(Roles.ADMIN)
public final class FeedsResource {

  private final Supplier<ChangeFeedsReport> report;

  public FeedsResource(Supplier<ChangeFeedsReport> report) {
    this.report = report;
  }

  @GET
  @Operation(
      operationId = "changeFeeds",
      summary = "The change feeds as this replica sees them: listening, pending, received, dropped",
      responses = @ApiResponse(responseCode = "200", description = "The feeds; an empty list when no source refreshes on change.", content = @Content(schema = @Schema(implementation = ChangeFeedsReport.class))))
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  public ChangeFeedsReport feeds() {
    return report.get();
  }
}
