package io.refresher.api;

import io.refresher.failure.CacheUnavailableException;
import io.refresher.refresh.RefreshOutcome;
import io.refresher.refresh.RefreshService;
import io.refresher.access.HotSetView;
import io.refresher.registry.InvalidRegistrationException;
import io.refresher.registry.KeyNotFoundException;
import io.refresher.registry.KeyResolver;
import io.refresher.registry.Registration;
import io.refresher.registry.Registry;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registered keys. A key is the rest of the path after {@code /v1/keys/}, percent-decoded: {@code
 * product:42} as-is, {@code catalog/electronics} with its slash as-is, and reserved characters
 * ({@code ?}, {@code #}, {@code %}, space) percent-encoded. See the README for the rules.
 */
@Path("/v1/keys")
@Produces(MediaType.APPLICATION_JSON)
// Admin-only unless a method says otherwise: a method added without its own annotation
// cannot be reached with the read token.
@RolesAllowed(Roles.ADMIN)
public final class KeyResource {

  private static final Logger LOG = LoggerFactory.getLogger(KeyResource.class);

  private final Registry registry;
  private final RefreshService refreshes;
  private final KeyResolver resolver;
  private final HotSetView hotSet;

  /** The answer to a registration: whether the key was new, what is stored, and its first refresh. */
  public record KeyRegistered(boolean created, KeyView registration, OutcomeView refresh) {}

  /** A page of registrations; {@code next} is the {@code after} of the next page, null on the last. */
  public record KeyPage(List<KeyView> items, @Schema(nullable = true) String next) {}

  public KeyResource(Registry registry, RefreshService refreshes, KeyResolver resolver, HotSetView hotSet) {
    this.registry = registry;
    this.refreshes = refreshes;
    this.resolver = resolver;
    this.hotSet = hotSet;
  }

  // Any content type is accepted at matching time so that authentication runs first: a
  // non-JSON body then fails when it is read (415), after the token was checked. The key takes the
  // same expression as for GET and DELETE: with another one, Jersey saw two resources, and the
  // Allow of an OPTIONS or a 405 left PUT out. An empty key is registerWithoutKey's.
  @PUT
  @Path("/{key: .+}")
  @Consumes(MediaType.WILDCARD)
  @Operation(
      operationId = "registerKey",
      summary = "Register (201) or replace (200) a key; its value is computed at once",
      responses = {
        @ApiResponse(responseCode = "201", description = "Registered.", content = @Content(schema = @Schema(implementation = KeyRegistered.class))),
        @ApiResponse(responseCode = "200", description = "Replaced.", content = @Content(schema = @Schema(implementation = KeyRegistered.class))),
        @ApiResponse(responseCode = "409", ref = OpenApiDocument.CONFLICT),
        @ApiResponse(responseCode = "422", ref = OpenApiDocument.INVALID),
        @ApiResponse(responseCode = "503", ref = OpenApiDocument.UNAVAILABLE)
      })
  public Response register(
      @PathParam("key") String key, @Context UriInfo uri, KeyRegistrationRequest request) {
    requireNoPathParameters(uri);
    if (request == null) {
      throw new InvalidRegistrationException("body", "must be a JSON object with source, params and ttl");
    }
    Registry.Registered registered =
        registry.register(key, request.source(), request.params(), request.ttl(), request.policy());
    Registration registration = registered.registration();
    LOG.info(
        "{} key '{}': source '{}', ttl {}, policy {}",
        registered.created() ? "registered" : "replaced",
        key,
        registration.source(),
        registration.ttl(),
        registration.policy().jsonName());
    RefreshOutcome outcome = refreshes.onRegistered(registration);
    KeyRegistered body = new KeyRegistered(registered.created(), KeyView.of(registration), OutcomeView.of(outcome));
    return Response.status(registered.created() ? Response.Status.CREATED : Response.Status.OK).entity(body).build();
  }

  /** {@code PUT /v1/keys} or {@code /v1/keys/}: the key is missing. */
  @PUT
  @Operation(
      operationId = "registerKeyWithoutKey",
      summary = "Always refused: the key is missing from the path",
      responses = @ApiResponse(responseCode = "422", ref = OpenApiDocument.INVALID))
  public Response registerWithoutKey() {
    throw new InvalidRegistrationException("key", "must not be empty: PUT /v1/keys/{key}");
  }

  /** A registered key, or a key a template covers (with {@code template} naming it). */
  @GET
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  @Path("/{key: .+}")
  @Operation(
      operationId = "getKey",
      summary = "A registered key, or one a template covers, with its live status",
      responses = {
        @ApiResponse(responseCode = "200", description = "The key and its status.", content = @Content(schema = @Schema(implementation = KeyView.class))),
        @ApiResponse(responseCode = "404", ref = OpenApiDocument.NOT_FOUND),
        @ApiResponse(responseCode = "422", ref = OpenApiDocument.INVALID),
        @ApiResponse(responseCode = "503", ref = OpenApiDocument.UNAVAILABLE)
      })
  public KeyView get(@PathParam("key") String key, @Context UriInfo uri) {
    requireNoPathParameters(uri);
    Registration registration = resolver.find(key).orElseThrow(() -> new KeyNotFoundException(key));
    try {
      return KeyView.of(registration, refreshes.status(registration), hotSet.get(key));
    } catch (CacheUnavailableException e) {
      return KeyView.unavailable(registration, "Redis unavailable: live status unknown");
    }
  }

  @GET
  @Operation(
      operationId = "listKeys",
      summary = "A page of registrations in key (byte) order",
      responses = {
        @ApiResponse(responseCode = "200", description = "The page.", content = @Content(schema = @Schema(implementation = KeyPage.class))),
        @ApiResponse(responseCode = "422", ref = OpenApiDocument.INVALID),
        @ApiResponse(responseCode = "503", ref = OpenApiDocument.UNAVAILABLE)
      })
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  public KeyPage list(
      @QueryParam("prefix") @DefaultValue("") String prefix,
      @QueryParam("after") @DefaultValue("") String after,
      @QueryParam("limit") @DefaultValue("100") String limit,
      @Context UriInfo uri) {
    // the server strips a path parameter first: /v1/keys/;x would be this listing
    requireNoPathParameters(uri);
    int size = RequestChecks.limit(limit, Registry.MAX_PAGE);
    List<Registration> page = registry.page(prefix, after, size);
    return new KeyPage(page.stream().map(KeyView::of).toList(), page.size() == size ? page.get(page.size() - 1).key() : null);
  }

  @DELETE
  @Path("/{key: .+}")
  @Operation(
      operationId = "deleteKey",
      summary = "Stop refreshing a key; its value expires on its own, or now with evict=true",
      responses = {
        @ApiResponse(responseCode = "204", description = "Deleted."),
        @ApiResponse(responseCode = "404", ref = OpenApiDocument.NOT_FOUND),
        @ApiResponse(responseCode = "503", ref = OpenApiDocument.UNAVAILABLE)
      })
  public Response delete(
      @PathParam("key") String key,
      @QueryParam("evict") @DefaultValue("false") boolean evict,
      @Context UriInfo uri) {
    requireNoPathParameters(uri);
    // Redis first, inside the deletion's transaction: a delete that cannot evict changes nothing
    // (503, retry), and once it commits no refresh still running can write the key again.
    registry.delete(key, generation -> refreshes.retire(key, generation, evict));
    refreshes.onDeleted(key);
    LOG.info("deleted key '{}'{}", key, evict ? " and evicted its value" : "; its value will expire on its own");
    return Response.noContent().build();
  }

  @POST
  @Path("/{key: .+}/refresh")
  @Operation(
      operationId = "refreshKey",
      summary = "Refresh a key now",
      responses = {
        @ApiResponse(responseCode = "200", description = "The outcome: refreshed, skipped or failed.", content = @Content(schema = @Schema(implementation = OutcomeView.class))),
        @ApiResponse(responseCode = "404", ref = OpenApiDocument.NOT_FOUND),
        @ApiResponse(responseCode = "422", ref = OpenApiDocument.INVALID),
        @ApiResponse(responseCode = "503", ref = OpenApiDocument.UNAVAILABLE)
      })
  public OutcomeView refresh(@PathParam("key") String key, @Context UriInfo uri) {
    requireNoPathParameters(uri);
    Registration registration = resolver.find(key).orElseThrow(() -> new KeyNotFoundException(key));
    RefreshOutcome outcome = refreshes.refreshNow(registration);
    LOG.info("manual refresh of key '{}': {}", key, outcome.name());
    return OutcomeView.of(outcome);
  }

  /** A raw {@code ;} would be stripped as a path parameter: see {@link RequestChecks#noPathParameters}. */
  private static void requireNoPathParameters(UriInfo uri) {
    RequestChecks.noPathParameters(uri, "key", "must percent-encode ';' as %3B in the path");
  }
}
