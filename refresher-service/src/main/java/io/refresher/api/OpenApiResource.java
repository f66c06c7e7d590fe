package io.refresher.api;

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
 * {@code GET /v1/openapi.json}: the admin API's OpenAPI 3 document, built once by {@link
 * OpenApiDocument}, at the first request rather than at start (swagger-core takes about a second to
 * resolve the models, which every start of the service, in every test, would pay). Like every request
 * it needs the token: the document says which keys and templates can be registered, nothing that an
 * unauthenticated caller needs. Served by this resource rather than swagger's own, so that it goes
 * through the same token check, error handling and filters as the rest of the API.
 */
@Path("/v1/openapi.json")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.ADMIN)
public final class OpenApiResource {

  private final Supplier<String> build;
  private volatile String document;

  /** @param build builds the document as JSON: {@link OpenApiDocument#json(int)} */
  public OpenApiResource(Supplier<String> build) {
    this.build = build;
  }

  @GET
  @Operation(
      operationId = "openApiDocument",
      summary = "This document",
      responses =
          @ApiResponse(
              responseCode = "200",
              description = "The OpenAPI 3 document of the admin API.",
              content = @Content(schema = @Schema(type = "object"))))
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  public String document() {
    String built = document;
    if (built == null) {
      synchronized (this) {
        if (document == null) {
          document = build.get();
        }
        built = document;
      }
    }
    return built;
  }
}
