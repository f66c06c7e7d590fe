package io.refresher.api;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;

/**
 * {@code GET /v1/whoami}: the role and id of the token the request presented, so that a client
 * (the console) can offer only what the token may do. Never the token.
 */
@Path("/v1/whoami")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.ADMIN)
public final class WhoAmIResource {

  /** @param tokenId the first 8 hex digits of the token's SHA-256 ({@link TokenIds}) */
  public record WhoAmI(String role, String tokenId) {}

  @GET
  @Operation(
      operationId = "whoAmI",
      summary = "The role and the id of the presented token",
      responses = {@ApiResponse(responseCode = "200", description = "Who the caller is.", content = @Content(schema = @Schema(implementation = WhoAmI.class)))})
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  public WhoAmI whoAmI(@Context SecurityContext security) {
    AdminPrincipal caller = (AdminPrincipal) security.getUserPrincipal();
    return new WhoAmI(caller.role(), caller.tokenId());
  }
}
