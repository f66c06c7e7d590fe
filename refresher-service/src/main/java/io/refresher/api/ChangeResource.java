package io.refresher.api;

import io.refresher.registry.Change;
import io.refresher.registry.ChangeActor;
import io.refresher.registry.ChangeLog;
import io.refresher.registry.InvalidRegistrationException;
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
import java.util.List;
import java.util.Map;

/**
 * {@code GET /v1/changes}: the change log of registrations and templates, newest first, each with
 * its actor (the token's role and id, never the token, and the request's id). Not {@code
 * /v1/audit}, which is the consistency audit's report.
 */
@Path("/v1/changes")
@Produces(MediaType.APPLICATION_JSON)
public final class ChangeResource {

  private final ChangeLog changes;

  public ChangeResource(ChangeLog changes) {
    this.changes = changes;
  }

  /**
   * @param role {@code admin} or {@code read} for a change through the API, {@code service} for
   *     one the service made itself
   * @param tokenId the first 8 hex digits of the SHA-256 of the token the request presented
   */
  public record ActorView(
      String role, @Schema(nullable = true) String tokenId, @Schema(nullable = true) String requestId) {

    static ActorView of(ChangeActor actor) {
      return actor == null ? null : new ActorView(actor.role(), actor.tokenId(), actor.requestId());
    }
  }

  /** @param actor null for changes recorded before actors were */
  public record ChangeView(
      long id,
      String at,
      String action,
      String key,
      Map<String, Object> detail,
      @Schema(nullable = true) ActorView actor) {

    static ChangeView of(Change change) {
      return new ChangeView(
          change.id(), change.at().toString(), change.action(), change.key(), change.detail(), ActorView.of(change.actor()));
    }
  }

  /** @param next the {@code before} of the next page; null on the last */
  public record ChangePage(List<ChangeView> items, @Schema(nullable = true) Long next) {}

  @GET
  @Operation(
      operationId = "listChanges",
      summary = "The change log of registrations and templates, newest first, with who made each change",
      responses = {
        @ApiResponse(responseCode = "200", description = "The page.", content = @Content(schema = @Schema(implementation = ChangePage.class))),
        @ApiResponse(responseCode = "422", ref = OpenApiDocument.INVALID),
        @ApiResponse(responseCode = "503", ref = OpenApiDocument.UNAVAILABLE)
      })
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  public ChangePage list(
      @QueryParam("key") String key,
      @QueryParam("before") @DefaultValue("0") String before,
      @QueryParam("limit") @DefaultValue("100") String limit) {
    long beforeId = before(before);
    int size = RequestChecks.limit(limit, ChangeLog.MAX_PAGE);
    if (size < 1 || size > ChangeLog.MAX_PAGE) {
      throw new InvalidRegistrationException("limit", "must be a whole number between 1 and " + ChangeLog.MAX_PAGE);
    }
    List<Change> page = changes.page(key == null || key.isEmpty() ? null : key, beforeId, size);
    Long next = page.size() == size ? page.get(page.size() - 1).id() : null;
    return new ChangePage(page.stream().map(ChangeView::of).toList(), next);
  }

  private static long before(String text) {
    try {
      long value = Long.parseLong(text);
      if (value >= 0) {
        return value;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new InvalidRegistrationException(
        "before", "must be the id of a change (a whole number, 0 for the newest), as the previous page's 'next'");
  }
}
