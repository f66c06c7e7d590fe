package io.refresher.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.swagger.v3.core.converter.ModelConverters;
import io.swagger.v3.core.util.Json;
import io.swagger.v3.jaxrs2.Reader;
import io.swagger.v3.oas.integration.SwaggerConfiguration;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.Paths;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.BooleanSchema;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.NumberSchema;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.parameters.RequestBody;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import jakarta.annotation.security.RolesAllowed;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The admin API's OpenAPI 3 document, generated from the resources by swagger-core's {@link
 * Reader} (paths, methods, parameters, bodies and their schemas from the JAX-RS and {@code @Schema}
 * annotations), then completed here with what every operation shares, so that it is said once: the
 * bearer token, the error body and the error responses every request may get (400, 401, 500; 413
 * and 415 with a body), and the rules of the parameters that recur under one name ({@code key},
 * {@code name}, {@code limit}, {@code prefix}, {@code after}). Served by {@link OpenApiResource};
 * {@code OpenApiDocumentTest} checks it against the resources.
 */
public final class OpenApiDocument {

  /** Every resource of the admin API, in the order the document lists them. */
  public static final List<Class<?>> RESOURCES =
      List.of(
          KeyResource.class,
          RefreshResource.class,
          TemplateResource.class,
          HotResource.class,
          SourceResource.class,
          PrewarmResource.class,
          AuditResource.class,
          FeedsResource.class,
          OverviewResource.class,
          ChangeResource.class,
          WhoAmIResource.class,
          OpenApiResource.class);

  public static final String PARAM_VALUES = "#/components/schemas/ParamValues";
  public static final String NOT_FOUND = "#/components/responses/NotFound";
  public static final String CONFLICT = "#/components/responses/Conflict";
  public static final String INVALID = "#/components/responses/Invalid";
  public static final String UNAVAILABLE = "#/components/responses/Unavailable";

  private static final String JSON = jakarta.ws.rs.core.MediaType.APPLICATION_JSON;
  private static final String SCHEMAS = "#/components/schemas/";
  private static final String ERROR = SCHEMAS + "ApiError";
  private static final String KEY_SCHEMA = "Key";
  private static final String TEMPLATE_NAME_SCHEMA = "TemplateName";
  private static final String BEARER = "bearer";

  private OpenApiDocument() {}

  /** The document as JSON, for a service whose parameter values are bounded to {@code maxParamLength} characters. */
  public static String json(int maxParamLength) {
    try {
      return Json.mapper().writeValueAsString(build(maxParamLength));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the OpenAPI document cannot be written as JSON", e);
    }
  }

  /** The document, read from {@link #RESOURCES}. */
  public static OpenAPI build(int maxParamLength) {
    OpenAPI api = new Reader(new SwaggerConfiguration().openAPI(new OpenAPI())).read(new LinkedHashSet<>(RESOURCES));
    api.info(
        new Info()
            .title("Refresher admin API")
            .version("v1")
            .description(
                "Registers the keys and key templates the Refresher service keeps fresh in Redis, and shows "
                    + "their live status, the hot set, the sources and the refill after a Redis data loss. "
                    + "Every request needs 'Authorization: Bearer <token>', whatever its method or path: the "
                    + "admin token for every operation, the read token (admin.readToken) for those whose "
                    + "x-roles include 'read' (the GETs); other operations answer 403 to it. "
                    + "Every error, including those the HTTP server raises itself, has the ApiError shape. "
                    + "A rejected request changes nothing."));
    api.addSecurityItem(new SecurityRequirement().addList(BEARER));
    Components components = api.getComponents() == null ? new Components() : api.getComponents();
    api.components(components);
    components.addSecuritySchemes(
        BEARER,
        new SecurityScheme()
            .type(SecurityScheme.Type.HTTP)
            .scheme("bearer")
            .description(
                "The admin token (REFRESHER_ADMIN_TOKEN, role 'admin'), or the read token "
                    + "(REFRESHER_ADMIN_READ_TOKEN, role 'read': GETs only)."));
    ModelConverters.getInstance().readAll(ApiError.class).forEach(components::addSchemas);
    components.getSchemas().get("FieldError")
        .description("One broken rule: the field, as a JSON path, and what it must be.")
        .required(List.of("field", "rule"));
    components.addSchemas("ParamValues", paramValues(maxParamLength));
    components.addSchemas(KEY_SCHEMA, keySchema());
    components.addSchemas(TEMPLATE_NAME_SCHEMA, templateNameSchema());
    // A record of the prewarm domain, which carries no annotations: what an idle refill leaves out.
    nullable(components.getSchemas().get("PrewarmStatus"), "trigger", "startedAt", "finishedAt", "estimatedEndAt", "updatedAt", "leader");
    addErrorResponses(components);
    Paths sorted = new Paths();
    new TreeMap<>(api.getPaths()).forEach(sorted::addPathItem);
    api.paths(sorted);
    Map<String, List<String>> roles = rolesByOperationId();
    for (PathItem path : sorted.values()) {
      for (Operation operation : path.readOperations()) {
        describeSharedParameters(operation);
        requireJsonBody(operation);
        addRoles(operation, roles.get(operation.getOperationId()));
        addSharedResponses(operation);
      }
    }
    components.schemas(new TreeMap<>(components.getSchemas()));
    components.responses(new TreeMap<>(components.getResponses()));
    return api;
  }

  private static void nullable(Schema<?> schema, String... properties) {
    for (String property : properties) {
      schema.getProperties().get(property).nullable(true);
    }
  }

  private static Schema<?> paramValues(int maxParamLength) {
    Schema<Object> value =
        new Schema<>()
            .description("A JSON scalar; see ParamValues for how each declared type converts it.")
            .anyOf(List.of(new StringSchema().maxLength(maxParamLength), new NumberSchema(), new BooleanSchema()));
    return new ObjectSchema()
        .description(
            OpenApiRules.PARAMS_DESCRIPTION + " Each value, as given, is at most " + maxParamLength
                + " characters (code points; admin.maxParamLength).")
        .nullable(true)
        .additionalProperties(value);
  }

  /**
   * The roles of each operation, from the {@code @RolesAllowed} of its method or, when it has
   * none, of its class: the document says what the service enforces, not what a convention says.
   */
  private static Map<String, List<String>> rolesByOperationId() {
    Map<String, List<String>> roles = new LinkedHashMap<>();
    for (Class<?> resource : RESOURCES) {
      for (Method method : resource.getDeclaredMethods()) {
        io.swagger.v3.oas.annotations.Operation operation =
            method.getAnnotation(io.swagger.v3.oas.annotations.Operation.class);
        RolesAllowed allowed = method.isAnnotationPresent(RolesAllowed.class)
            ? method.getAnnotation(RolesAllowed.class)
            : resource.getAnnotation(RolesAllowed.class);
        if (operation != null && allowed != null) {
          roles.put(operation.operationId(), List.of(allowed.value()));
        }
      }
    }
    return roles;
  }

  /** {@code x-roles}, and 403 for an operation the read token may not call. */
  private static void addRoles(Operation operation, List<String> roles) {
    if (roles == null) {
      throw new IllegalStateException("operation " + operation.getOperationId() + " has no @RolesAllowed");
    }
    operation.addExtension("x-roles", roles);
    if (!roles.contains(Roles.READ)) {
      addIfAbsent(operation.getResponses(), "403", "Forbidden");
    }
  }

  private static void addErrorResponses(Components components) {
    components.addResponses("BadRequest", error(
        "Malformed JSON, an unknown field, a field given twice, a value of the wrong type or format, a "
            + "request the HTTP server cannot parse, or a value the database refuses."));
    components.addResponses("Unauthorized", error("The token is missing or wrong."));
    components.addResponses("Forbidden", error("The read token on an operation for the admin token only; nothing was changed."));
    components.addResponses("NotFound", error("The key or template is not registered."));
    components.addResponses("Conflict", error("The change conflicts with what is stored, or a prewarm is running."));
    components.addResponses("TooLarge", error("The body is over admin.maxBodySize (1 MiB by default)."));
    components.addResponses("UnsupportedMediaType", error(
        "The body is not application/json (with at most charset=utf-8)."));
    components.addResponses("Invalid", error("A rule is broken; errors names each field and rule."));
    components.addResponses("Internal", error("An unexpected fault, logged with the correlationId the body repeats."));
    components.addResponses(
        "Unavailable",
        error("PostgreSQL or Redis cannot be reached or timed out; nothing was changed.")
            .addHeaderObject(
                "Retry-After",
                new Header().description("Seconds to wait before retrying.").schema(new IntegerSchema())));
  }

  private static ApiResponse error(String description) {
    return new ApiResponse()
        .description(description)
        .content(new Content().addMediaType(JSON, new MediaType().schema(new Schema<>().$ref(ERROR))));
  }

  private static void describeSharedParameters(Operation operation) {
    if (operation.getParameters() == null) {
      return;
    }
    for (Parameter parameter : operation.getParameters()) {
      switch (parameter.getIn() + ":" + parameter.getName()) {
        case "path:key" -> parameter
            .description(OpenApiRules.KEY_DESCRIPTION)
            .schema(new Schema<>().$ref(SCHEMAS + KEY_SCHEMA));
        case "path:name" -> parameter
            .description("The template's name: short, lower case, safe in a path segment.")
            .schema(new Schema<>().$ref(SCHEMAS + TEMPLATE_NAME_SCHEMA));
        case "query:limit" -> parameter
            .description("The most items to return.")
            .schema(
                new IntegerSchema()
                    .minimum(BigDecimal.ONE)
                    .maximum(new BigDecimal(OpenApiRules.MAX_PAGE))
                    ._default(Integer.valueOf(String.valueOf(parameter.getSchema().getDefault()))));
        case "query:evict" -> parameter.description(
            "true (in any letter case) also removes the value from Redis now; any other value, or none, "
                + "leaves it to expire on its own.");
        case "query:prefix" -> parameter.description("Only keys that start with this text (no U+0000).");
        case "query:after" -> parameter.description(
            "Only items after this one in byte order: the 'next' of the previous page (no U+0000).");
        default -> {
          // described where it is declared
        }
      }
    }
  }

  private static Schema<?> keySchema() {
    Schema<?> key =
        new StringSchema()
            .description(OpenApiRules.KEY_DESCRIPTION)
            .minLength(1)
            .maxLength(OpenApiRules.KEY_MAX_UTF8_BYTES)
            .pattern(OpenApiRules.KEY_PATTERN);
    key.addExtension(OpenApiRules.MAX_UTF8_BYTES_EXTENSION, OpenApiRules.KEY_MAX_UTF8_BYTES);
    return key;
  }

  private static Schema<?> templateNameSchema() {
    return new StringSchema()
        .description("A template name: 1 to 64 characters of a-z, 0-9, '.', '_' and '-', starting with a letter or digit.")
        .minLength(1)
        .maxLength(OpenApiRules.TEMPLATE_NAME_MAX_LENGTH)
        .pattern(OpenApiRules.TEMPLATE_NAME_PATTERN);
  }

  /**
   * The resources accept any content type at matching time so that the token is checked first
   * (see {@link KeyResource}); what they read is JSON only.
   */
  private static void requireJsonBody(Operation operation) {
    RequestBody body = operation.getRequestBody();
    if (body == null || body.getContent() == null) {
      return;
    }
    Map<String, MediaType> json = new LinkedHashMap<>();
    body.getContent().values().stream().findFirst().ifPresent(media -> json.put(JSON, media));
    Content content = new Content();
    content.putAll(json);
    body.content(content).required(true);
  }

  private static void addSharedResponses(Operation operation) {
    ApiResponses responses = operation.getResponses();
    // every operation declares its own success responses; swagger's placeholder says nothing
    responses.remove("default");
    if (operation.getRequestBody() != null) {
      addIfAbsent(responses, "413", "TooLarge");
      addIfAbsent(responses, "415", "UnsupportedMediaType");
    }
    addIfAbsent(responses, "400", "BadRequest");
    addIfAbsent(responses, "401", "Unauthorized");
    addIfAbsent(responses, "500", "Internal");
    ApiResponses sorted = new ApiResponses();
    new TreeMap<>(responses).forEach(sorted::addApiResponse);
    operation.responses(sorted);
  }

  private static void addIfAbsent(ApiResponses responses, String status, String component) {
    responses.computeIfAbsent(status, code -> new ApiResponse().$ref("#/components/responses/" + component));
  }
}
