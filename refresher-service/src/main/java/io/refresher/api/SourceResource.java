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
import io.refresher.access.HotSetView;
import io.refresher.metrics.RefreshMetrics;
import io.refresher.registry.KeyResolver;
import io.refresher.registry.Registration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/** The configured sources and the parameters each needs (their SQL stays in the configuration). */
@Path("/v1/sources")
@Produces(MediaType.APPLICATION_JSON)
// Admin-only unless a method says otherwise: a method added without its own annotation
// cannot be reached with the read token.
@RolesAllowed(Roles.ADMIN)
public final class SourceResource {

  /** The hottest keys {@code GET /v1/sources/activity} resolves, at most: one registry query. */
  static final int HOT_KEYS_COUNTED = 10_000;

  private final SourceCatalog catalog;
  private final Supplier<Map<String, Long>> registeredBySource;
  private final HotSetView hotSet;
  private final KeyResolver resolver;
  private final Supplier<Map<String, RefreshMetrics.SourceTotals>> totals;

  public SourceResource(
      SourceCatalog catalog,
      Supplier<Map<String, Long>> registeredBySource,
      HotSetView hotSet,
      KeyResolver resolver,
      Supplier<Map<String, RefreshMetrics.SourceTotals>> totals) {
    this.catalog = catalog;
    this.registeredBySource = registeredBySource;
    this.hotSet = hotSet;
    this.resolver = resolver;
    this.totals = totals;
  }

  /**
   * What one source keeps: keys registered with it (in the registry), hot keys it computes (own
   * registrations and template keys alike), and on this replica since it started its refreshes by
   * outcome and when its current failure streak began (null while its last refresh succeeded).
   */
  public record SourceUse(
      String name,
      long keysRegistered,
      long hotKeys,
      long refreshed,
      long revalidated,
      long skipped,
      long failed,
      @Schema(nullable = true) Instant failingSince) {}

  /** The hot keys a template computes now. */
  public record TemplateUse(String name, long hotKeys) {}

  /**
   * @param hotKeysCounted the hottest keys that were resolved to count hot keys (at most {@value
   *     #HOT_KEYS_COUNTED}; the hot set may hold more)
   */
  public record Activity(List<SourceUse> sources, List<TemplateUse> templates, int hotKeysCounted) {}

  @GET
  @Path("/activity")
  @Operation(
      operationId = "sourceActivity",
      summary = "What each source and template keeps: keys registered, hot keys, refreshes and failure streaks",
      responses = {
        @ApiResponse(responseCode = "200", description = "Each configured source and each template with hot keys.", content = @Content(schema = @Schema(implementation = Activity.class))),
        @ApiResponse(responseCode = "503", ref = OpenApiDocument.UNAVAILABLE)
      })
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  public Activity activity() {
    List<HotSetView.HotKey> hottest = hotSet.hottest(HOT_KEYS_COUNTED);
    Map<String, Registration> resolved = resolver.findAll(hottest.stream().map(HotSetView.HotKey::key).toList());
    Map<String, Long> hotBySource = new HashMap<>();
    Map<String, Long> hotByTemplate = new TreeMap<>();
    for (Registration registration : resolved.values()) {
      hotBySource.merge(registration.source(), 1L, Long::sum);
      if (registration.template() != null) {
        hotByTemplate.merge(registration.template(), 1L, Long::sum);
      }
    }
    Map<String, Long> registered = registeredBySource.get();
    Map<String, RefreshMetrics.SourceTotals> refreshes = totals.get();
    RefreshMetrics.SourceTotals none = new RefreshMetrics.SourceTotals(0, 0, 0, 0, null);
    List<SourceUse> sources = new ArrayList<>();
    for (var source : catalog.all()) {
      RefreshMetrics.SourceTotals done = refreshes.getOrDefault(source.name(), none);
      sources.add(
          new SourceUse(
              source.name(),
              registered.getOrDefault(source.name(), 0L),
              hotBySource.getOrDefault(source.name(), 0L),
              done.refreshed(),
              done.revalidated(),
              done.skipped(),
              done.failed(),
              done.failingSince()));
    }
    List<TemplateUse> templates = new ArrayList<>();
    hotByTemplate.forEach((name, hot) -> templates.add(new TemplateUse(name, hot)));
    return new Activity(sources, templates, hottest.size());
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
