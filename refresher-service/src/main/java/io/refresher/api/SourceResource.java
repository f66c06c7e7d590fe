package io.refresher.api;

import java.util.LinkedHashMap;
import io.refresher.source.SourceCatalog;
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

  @GET
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  public Map<String, List<SourceView>> list() {
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
    return Map.of("sources", sources);
  }
}
