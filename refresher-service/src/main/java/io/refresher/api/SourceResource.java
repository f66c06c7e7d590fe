package io.refresher.api;

import java.util.LinkedHashMap;
import io.refresher.source.SourceCatalog;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Map;

/** The configured sources and the parameters each needs (their SQL stays in the configuration). */
@Path("/v1/sources")
@Produces(MediaType.APPLICATION_JSON)
// Admin-only unless a method says otherwise: a method added without its own annotation
// cannot be reached with the read token.
@RolesAllowed(Roles.ADMIN)
public final class SourceResource {

  private final SourceCatalog catalog;

  public SourceResource(SourceCatalog catalog) {
    this.catalog = catalog;
  }

  /** One source as JSON. */
  public record SourceView(String name, String datasource, Map<String, String> params, String result, String timeout) {}

  /** Every configured source. */
  public record SourceList(List<SourceView> sources) {}

  @GET
  @Operation(
      operationId = "listSources",
      summary = "The configured sources and the parameters each needs",
      responses = @ApiResponse(responseCode = "200", description = "The sources.", content = @Content(schema = @Schema(implementation = SourceList.class))))
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  public SourceList list() {
    List<SourceView> sources =
        catalog.all().stream()
            .map(
                source -> {
                  Map<String, String> params = new LinkedHashMap<>();
                  source.params().forEach((name, type) -> params.put(name, type.jsonName()));
                  return new SourceView(
                      source.name(), source.datasource(), params, source.result().jsonName(), source.timeout().toString());
                })
            .toList();
    return new SourceList(sources);
  }
}
