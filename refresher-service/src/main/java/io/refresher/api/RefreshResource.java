package io.refresher.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.refresher.refresh.BulkRefresh;
import io.refresher.registry.FieldError;
import io.refresher.registry.InvalidRegistrationException;
import io.refresher.registry.KeyRules;
import io.refresher.registry.KeyTemplate;
import io.refresher.registry.Registration;
import io.refresher.registry.Registry;
import io.refresher.registry.Templates;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refresh on change: {@code POST /v1/refresh} refreshes now the keys an application just changed
 * the data of, instead of deleting them (a deleted hot key is a stampede). Each key goes through
 * the one refresh path, within its datasource's load bound; the answer says what became of each.
 */
@Path("/v1/refresh")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.ADMIN)
public final class RefreshResource {

  private static final Logger LOG = LoggerFactory.getLogger(RefreshResource.class);

  /** Most keys one request refreshes: a request is answered when all its refreshes are done. */
  public static final int MAX_KEYS = 500;

  private static final int DEFAULT_PREFIX_LIMIT = 100;

  private final BulkRefresh refreshes;
  private final Templates templates;
  private final Registry registry;

  public RefreshResource(BulkRefresh refreshes, Templates templates, Registry registry) {
    this.refreshes = refreshes;
    this.templates = templates;
    this.registry = registry;
  }

  /**
   * One key's result: {@code outcome} is refreshed, revalidated, skipped (with its {@code reason}),
   * failed (with {@code errorKind} and {@code error}) or not_registered.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @Schema(name = "KeyRefreshResult")
  public record KeyResult(
      String key,
      @Schema(allowableValues = {"refreshed", "revalidated", "skipped", "failed", "not_registered"}) String outcome,
      String reason,
      Instant computedAt,
      Long computeMillis,
      Instant expiresAt,
      Instant nextRefreshAt,
      String errorKind,
      String error,
      Instant retryAt) {

    static KeyResult of(BulkRefresh.Result result) {
      if (!result.registered()) {
        return new KeyResult(
            result.key(), "not_registered", "no registration and no template covers this key", null, null, null, null, null, null, null);
      }
      OutcomeView view = OutcomeView.of(result.outcome());
      return new KeyResult(
          result.key(),
          view.outcome(),
          view.reason(),
          view.computedAt(),
          view.computeMillis(),
          view.expiresAt(),
          view.nextRefreshAt(),
          view.errorKind(),
          view.error(),
          view.retryAt());
    }
  }

  /**
   * The answer: each key's result in request order, how many had each outcome, and for a prefix the
   * {@code after} of the next page (null on the last).
   */
  @Schema(name = "RefreshResults")
  public record Results(
      List<KeyResult> results, Map<String, Integer> counts, @Schema(nullable = true) String next) {}

  @POST
  @Consumes(MediaType.WILDCARD)
  @Operation(
      operationId = "refreshMany",
      summary = "Refresh keys now: a list, a template's keys by their parameters, or registered keys by prefix",
      responses = {
        @ApiResponse(responseCode = "200", description = "What became of each key.", content = @Content(schema = @Schema(implementation = Results.class))),
        @ApiResponse(responseCode = "404", ref = OpenApiDocument.NOT_FOUND),
        @ApiResponse(responseCode = "422", ref = OpenApiDocument.INVALID),
        @ApiResponse(responseCode = "503", ref = OpenApiDocument.UNAVAILABLE)
      })
  public Results refresh(RefreshRequest request) {
    if (request == null) {
      throw new InvalidRegistrationException("body", "must be a JSON object with one of keys, template (and params) or prefix");
    }
    int modes = (request.keys() != null ? 1 : 0) + (request.template() != null ? 1 : 0) + (request.prefix() != null ? 1 : 0);
    if (modes != 1) {
      throw new InvalidRegistrationException(
          "body", "must have exactly one of keys, template (with params) or prefix; it has " + modes);
    }
    if (request.template() == null && request.params() != null) {
      throw new InvalidRegistrationException("params", "is only for a template");
    }
    if (request.prefix() == null && (request.after() != null || request.limit() != null)) {
      throw new InvalidRegistrationException(request.after() != null ? "after" : "limit", "is only for a prefix");
    }
    String next = null;
    List<String> keys;
    String what;
    if (request.keys() != null) {
      keys = checkedKeys(request.keys());
      what = keys.size() + " keys";
    } else if (request.template() != null) {
      keys = templateKeys(request.template(), request.params());
      what = keys.size() + " keys of template '" + request.template() + "'";
    } else {
      int limit = request.limit() == null ? DEFAULT_PREFIX_LIMIT : request.limit();
      if (limit < 1 || limit > MAX_KEYS) {
        throw new InvalidRegistrationException("limit", "must be between 1 and " + MAX_KEYS);
      }
      if (request.prefix().isEmpty()) {
        throw new InvalidRegistrationException("prefix", "must not be empty (to refresh everything, page with a prefix per key family)");
      }
      List<Registration> page = registry.page(request.prefix(), request.after() == null ? "" : request.after(), limit);
      keys = page.stream().map(Registration::key).toList();
      next = page.size() == limit ? keys.get(keys.size() - 1) : null;
      what = keys.size() + " keys under prefix '" + request.prefix() + "'";
    }
    List<KeyResult> results = refreshes.refresh(keys).stream().map(KeyResult::of).toList();
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (String outcome : List.of("refreshed", "revalidated", "skipped", "failed", "not_registered")) {
      counts.put(outcome, 0);
    }
    results.forEach(result -> counts.merge(result.outcome(), 1, Integer::sum));
    LOG.info("refresh of {} asked through the API: {}", what, counts);
    return new Results(results, counts, next);
  }

  private static List<String> checkedKeys(List<String> keys) {
    if (keys.isEmpty() || keys.size() > MAX_KEYS) {
      throw new InvalidRegistrationException("keys", "must hold 1 to " + MAX_KEYS + " keys; it holds " + keys.size());
    }
    List<FieldError> errors = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.get(i);
      if (key == null) {
        errors.add(new FieldError("keys[" + i + "]", "must be a string, not null"));
        continue;
      }
      int index = i;
      KeyRules.violation(key).ifPresent(rule -> errors.add(new FieldError("keys[" + index + "]", rule)));
    }
    if (!errors.isEmpty()) {
      throw new InvalidRegistrationException(errors);
    }
    return keys;
  }

  /** The template's key for each params object; every object must name one. */
  private List<String> templateKeys(String name, List<Map<String, Object>> params) {
    if (params == null || params.isEmpty() || params.size() > MAX_KEYS) {
      throw new InvalidRegistrationException(
          "params", "must hold 1 to " + MAX_KEYS + " objects of placeholder values; it holds " + (params == null ? 0 : params.size()));
    }
    KeyTemplate template = templates.get(name);
    List<String> keys = new ArrayList<>(params.size());
    List<FieldError> errors = new ArrayList<>();
    for (int i = 0; i < params.size(); i++) {
      Map<String, Object> values = params.get(i);
      Optional<String> key = values == null ? Optional.empty() : template.pattern().render(texts(values));
      if (key.isEmpty()) {
        errors.add(
            new FieldError(
                "params[" + i + "]",
                "must give each placeholder of " + template.pattern().text() + " " + template.pattern().placeholders()
                    + " a non-empty value without ':', '/', '{' or '}' that reads back as itself"));
        continue;
      }
      int index = i;
      KeyRules.violation(key.get()).ifPresentOrElse(
          rule -> errors.add(new FieldError("params[" + index + "]", "makes a key that " + rule)), () -> keys.add(key.get()));
    }
    if (!errors.isEmpty()) {
      throw new InvalidRegistrationException(errors);
    }
    return keys;
  }

  /** Placeholder values as the key holds them: JSON scalars as text. */
  private static Map<String, String> texts(Map<String, Object> values) {
    Map<String, String> texts = new LinkedHashMap<>();
    values.forEach(
        (name, value) -> {
          if (value instanceof String || value instanceof Number || value instanceof Boolean) {
            texts.put(name, value.toString());
          }
        });
    return texts;
  }
}
