package io.refresher.api;

import io.refresher.registry.InvalidRegistrationException;
import io.refresher.refresh.audit.AuditLedger;
import io.refresher.refresh.audit.AuditReport;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code GET /v1/audit?window=PT1H}: what the consistency audit found over a window (at most the
 * configured {@code audit.window}, its default), per source and per template, from every replica's
 * samples.
 */
@Path("/v1/audit")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.ADMIN)
public final class AuditResource {

  private final AuditLedger ledger;
  private final Duration window;
  private final double objective;
  private final boolean enabled;
  private final InstantSource clock;

  /** @param enabled whether any datasource is audited (else the report says so, and is empty) */
  public AuditResource(AuditLedger ledger, Duration window, double objective, boolean enabled, InstantSource clock) {
    this.ledger = ledger;
    this.window = window;
    this.objective = objective;
    this.enabled = enabled;
    this.clock = clock;
  }

  /**
   * One source's or template's figures.
   *
   * @param nines the match ratio as nines ({@code -log10} of the mismatch ratio); null while no
   *     sample mismatched
   * @param meetsObjective whether the match ratio is at least the objective; null without samples
   */
  public record FiguresView(
      @Schema(nullable = true) String template,
      long samples,
      long matches,
      long mismatches,
      long inconclusive,
      @Schema(nullable = true) Double matchRatio,
      @Schema(nullable = true) Double nines,
      @Schema(nullable = true) Long maxMismatchAgeMillis,
      @Schema(nullable = true) Long p99MismatchAgeMillis,
      @Schema(nullable = true) Boolean meetsObjective) {}

  /** A source's figures, and those of each of its templates (template null: keys registered alone). */
  public record SourceView(String source, FiguresView total, List<FiguresView> templates) {}

  /** The report over {@code from}..{@code to}. */
  public record AuditView(boolean enabled, Instant from, Instant to, double objective, List<SourceView> sources) {}

  @GET
  @Operation(
      operationId = "consistencyAudit",
      summary = "What the consistency audit found over a window, per source and template",
      responses = {
        @ApiResponse(responseCode = "200", description = "The audit's figures.", content = @Content(schema = @Schema(implementation = AuditView.class))),
        @ApiResponse(responseCode = "422", ref = OpenApiDocument.INVALID),
        @ApiResponse(responseCode = "503", ref = OpenApiDocument.UNAVAILABLE)
      })
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  public AuditView report(@QueryParam("window") String windowParam) {
    Duration over = window(windowParam);
    long now = clock.millis();
    AuditReport report = ledger.since(now - over.toMillis());
    List<SourceView> sources = new ArrayList<>();
    for (AuditReport.Figures total : report.bySource()) {
      List<FiguresView> templates =
          report.byTemplate().stream().filter(f -> f.source().equals(total.source())).map(this::view).toList();
      sources.add(new SourceView(total.source(), view(total), templates));
    }
    return new AuditView(enabled, Instant.ofEpochMilli(now - over.toMillis()), Instant.ofEpochMilli(now), objective, sources);
  }

  private FiguresView view(AuditReport.Figures f) {
    Double ratio = f.matchRatio();
    return new FiguresView(
        f.template(),
        f.samples(),
        f.matches(),
        f.mismatches(),
        f.inconclusive(),
        ratio,
        f.nines(),
        f.maxMismatchAgeMillis(),
        f.p99MismatchAgeMillis(),
        ratio == null ? null : ratio >= objective);
  }

  private Duration window(String text) {
    if (text == null || text.isBlank()) {
      return window;
    }
    Duration parsed;
    try {
      parsed = IsoDuration.parse(text);
    } catch (DateTimeParseException e) {
      throw new InvalidRegistrationException("window", "must be an ISO-8601 duration such as PT1H");
    }
    if (parsed.compareTo(Duration.ofMinutes(1)) < 0 || parsed.compareTo(window) > 0) {
      throw new InvalidRegistrationException("window", "must be between PT1M and the configured audit.window (" + window + ")");
    }
    return parsed;
  }
}
