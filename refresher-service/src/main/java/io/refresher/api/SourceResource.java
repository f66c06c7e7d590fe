package io.refresher.api;

import java.util.LinkedHashMap;
import io.refresher.source.SourceCatalog;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import com.fasterxml.jackson.annotation.JsonInclude;
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

  /**
   * One source as JSON: a SQL source names its {@code datasource}, an HTTP source its {@code
   * endpoint} (never its headers, which may hold tokens). {@code revalidates}: the source can say
   * "unchanged" more cheaply than computing (a version query, or HTTP validators); {@code
   * changesChannel}: the PostgreSQL channel whose notifications refresh its keys.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record SourceView(
      String name,
      String kind,
      String datasource,
      String endpoint,
      Map<String, String> params,
      String result,
      String timeout,
      boolean revalidates,
      String changesChannel) {}

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
                      source.name(),
                      source.isHttp() ? "http" : "sql",
                      source.isHttp() ? null : source.datasource(),
                      source.isHttp() ? source.datasource() : null,
                      params,
                      source.isHttp() ? (source.http().pointer() == null ? "body" : "pointer " + source.http().pointer()) : source.result().jsonName(),
                      source.timeout().toString(),
                      source.isHttp() || source.versionSql() != null,
                      source.changes() == null ? null : source.changes().channel());
                })
            .toList();
    return new SourceList(sources);
  }
}
