package io.refresher.api;

import io.refresher.registry.InvalidRegistrationException;
import io.refresher.registry.KeyTemplate;
import io.refresher.registry.Templates;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

  public TemplateResource(Templates templates) {
    this.templates = templates;
  }

  // Any content type is accepted at matching time so that authentication runs first: a
  // non-JSON body then fails when it is read (415), after the token was checked. The name takes
  // the rest of the path so that a name with a slash is refused by the name rule (422), not 404.
  @PUT
  @Path("/{name: .+}")
  @Consumes(MediaType.WILDCARD)
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
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("created", stored.created());
    body.put("template", TemplateView.of(template));
    return Response.status(stored.created() ? Response.Status.CREATED : Response.Status.OK).entity(body).build();
  }

  /** {@code PUT /v1/templates}: the name is missing. */
  @PUT
  @Consumes(MediaType.WILDCARD)
  public Response putWithoutName() {
    throw new InvalidRegistrationException("name", "is required: PUT /v1/templates/{name}");
  }

  @GET
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  @Path("/{name: .+}")
  public TemplateView get(@PathParam("name") String name, @Context UriInfo uri) {
    requireNoPathParameters(uri);
    return TemplateView.of(templates.get(name));
  }

  @GET
  @RolesAllowed({Roles.READ, Roles.ADMIN})
  public Map<String, Object> list(
      @QueryParam("after") @DefaultValue("") String after,
      @QueryParam("limit") @DefaultValue("100") String limit) {
    int size = RequestChecks.limit(limit, Templates.MAX_PAGE);
    List<KeyTemplate> page = templates.page(after, size);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("items", page.stream().map(TemplateView::of).toList());
    body.put("next", page.size() == size ? page.get(page.size() - 1).name() : null);
    return body;
  }

  @DELETE
  @Path("/{name: .+}")
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
