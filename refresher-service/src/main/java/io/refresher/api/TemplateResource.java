package io.refresher.api;

import io.refresher.registry.InvalidRegistrationException;
import io.refresher.registry.KeyTemplate;
import io.refresher.registry.Templates;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
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
 * Key templates: families of keys such as {@code product:{id}}, each computed by one source with
 * parameters taken from the key. A template's keys are refreshed while applications read them
 * often; deleting the template stops that, and their values expire on their own.
 */
@Path("/v1/templates")
@Produces(MediaType.APPLICATION_JSON)
// Admin-only unless a method says otherwise: a method added without its own annotation
// cannot be reached with the read token.
@RolesAllowed(Roles.ADMIN)
public final class TemplateResource {

  private static final Logger LOG = LoggerFactory.getLogger(TemplateResource.class);

  private final Templates templates;

  /** The answer to a {@code PUT}: whether the template was new, and what is stored. */
  public record TemplateStored(boolean created, TemplateView template) {}

  /** A page of templates; {@code next} is the {@code after} of the next page, null on the last. */
  public record TemplatePage(List<TemplateView> items, @Schema(nullable = true) String next) {}

  public TemplateResource(Templates templates) {
    this.templates = templates;
  }

  // Any content type is accepted at matching time so that authentication runs first: a
  // non-JSON body then fails when it is read (415), after the token was checked. The name takes
  // the rest of the path so that a name with a slash is refused by the name rule (422), not 404.
  @PUT
  @Path("/{name: .+}")
  @Consumes(MediaType.WILDCARD)
  @Operation(
      operationId = "putTemplate",
      summary = "Register (201) or replace (200) a key template",
      responses = {
        @ApiResponse(responseCode = "201", description = "Registered.", content = @Content(schema = @Schema(implementation = TemplateStored.class))),
        @ApiResponse(responseCode = "200", description = "Replaced.", content = @Content(schema = @Schema(implementation = TemplateStored.class))),
        @ApiResponse(responseCode = "409", ref = OpenApiDocument.CONFLICT),
        @ApiResponse(responseCode = "422", ref = OpenApiDocument.INVALID),
        @ApiResponse(responseCode = "503", ref = OpenApiDocument.UNAVAILABLE)
      })
  public Response put(@PathParam("name") String name, @Context UriInfo uri, TemplateRequest request) {
    requireNoPathParameters(uri);
    if (request == null) {
      throw new InvalidRegistrationException("body", "must be a JSON object with pattern, source, params and ttl");
    }
    Templates.Stored stored = templates.put(name, request.pattern(), request.source(), request.params(), request.ttl());
    KeyTemplate template = stored.template();
    LOG.info(
        "{} template '{}': pattern '{}' → source '{}', ttl {}",
        stored.created() ? "registered" : "replaced",
        name,
        template.pattern().text(),
        template.source(),
        template.ttl());
    TemplateStored body = new TemplateStored(stored.created(), TemplateView.of(template));
    return Response.status(stored.created() ? Response.Status.CREATED : Response.Status.OK).entity(body).build();
  }

  /** {@code PUT /v1/templates}: the name is missing. */
  @PUT
  @Consumes(MediaType.WILDCARD)
  @Operation(
      operationId = "putTemplateWithoutName",
      summary = "Always refused: the name is missing from the path",
      responses = @ApiResponse(responseCode = "422", ref = OpenApiDocument.INVALID))
  public Response putWithoutName() {
    throw new InvalidRegistrationException("name", "is required: PUT /v1/templates/{name}");
  }

  @GET
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  @Path("/{name: .+}")
  @Operation(
      operationId = "getTemplate",
      summary = "One template",
      responses = {
        @ApiResponse(responseCode = "200", description = "The template.", content = @Content(schema = @Schema(implementation = TemplateView.class))),
        @ApiResponse(responseCode = "404", ref = OpenApiDocument.NOT_FOUND),
        @ApiResponse(responseCode = "422", ref = OpenApiDocument.INVALID),
        @ApiResponse(responseCode = "503", ref = OpenApiDocument.UNAVAILABLE)
      })
  public TemplateView get(@PathParam("name") String name, @Context UriInfo uri) {
    requireNoPathParameters(uri);
    return TemplateView.of(templates.get(name));
  }

  @GET
  @Operation(
      operationId = "listTemplates",
      summary = "A page of templates in name order",
      responses = {
        @ApiResponse(responseCode = "200", description = "The page.", content = @Content(schema = @Schema(implementation = TemplatePage.class))),
        @ApiResponse(responseCode = "422", ref = OpenApiDocument.INVALID),
        @ApiResponse(responseCode = "503", ref = OpenApiDocument.UNAVAILABLE)
      })
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  public TemplatePage list(
      @QueryParam("after") @DefaultValue("") String after,
      @QueryParam("limit") @DefaultValue("100") String limit,
      @Context UriInfo uri) {
    // the server strips a path parameter first: /v1/templates/;x would be this listing
    requireNoPathParameters(uri);
    int size = RequestChecks.limit(limit, Templates.MAX_PAGE);
    List<KeyTemplate> page = templates.page(after, size);
    return new TemplatePage(page.stream().map(TemplateView::of).toList(), page.size() == size ? page.get(page.size() - 1).name() : null);
  }

  @DELETE
  @Path("/{name: .+}")
  @Operation(
      operationId = "deleteTemplate",
      summary = "Remove a template; its keys are no longer refreshed and expire on their own",
      responses = {
        @ApiResponse(responseCode = "204", description = "Deleted."),
        @ApiResponse(responseCode = "404", ref = OpenApiDocument.NOT_FOUND),
        @ApiResponse(responseCode = "503", ref = OpenApiDocument.UNAVAILABLE)
      })
  public Response delete(@PathParam("name") String name, @Context UriInfo uri) {
    requireNoPathParameters(uri);
    templates.delete(name);
    LOG.info("deleted template '{}'; its keys are no longer refreshed and expire on their own", name);
    return Response.noContent().build();
  }

  /** A raw {@code ;} would be stripped as a path parameter: see {@link RequestChecks#noPathParameters}. */
  private static void requireNoPathParameters(UriInfo uri) {
    RequestChecks.noPathParameters(uri, "name", "must not contain ';' (template names never do)");
  }
}
