package io.refresher.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.refresher.registry.RegistrationLimits;
import jakarta.ws.rs.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.glassfish.jersey.server.model.Resource;
import org.glassfish.jersey.server.model.ResourceMethod;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document against the resources it describes (Jersey's own model of them, so that a
 * method added without its operation, or an operation left after its method went, fails here), and
 * against the structure of an OpenAPI 3.0 document.
 */
class OpenApiDocumentTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> HTTP_METHODS = Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace");
  private static final Pattern TEMPLATE = Pattern.compile("\\{\\s*(\\w+)\\s*(?::[^}]*)?}");

  private static JsonNode document;

  @BeforeAll
  static void build() throws Exception {
    document = JSON.readTree(OpenApiDocument.json(RegistrationLimits.DEFAULT_MAX_PARAM_LENGTH));
  }

  @Test
  void resources_everyResourceOfTheApiIsInTheDocument() {
    Set<String> annotated = new TreeSet<>();
    for (JavaClass type :
        new ClassFileImporter().withImportOption(new ImportOption.DoNotIncludeTests()).importPackages("io.refresher.api")) {
      if (type.isAnnotatedWith(Path.class)) {
        annotated.add(type.getName());
      }
    }
    Set<String> documented = new TreeSet<>();
    OpenApiDocument.RESOURCES.forEach(resource -> documented.add(resource.getName()));

    assertThat(documented).isEqualTo(annotated);
  }

  @Test
  void operations_areExactlyTheResourceMethods() {
    Set<String> methods = new TreeSet<>();
    for (Class<?> type : OpenApiDocument.RESOURCES) {
      collect(Resource.from(type), "", methods);
    }
    Set<String> operations = new TreeSet<>();
    document.path("paths").properties().forEach(path -> path.getValue().fieldNames().forEachRemaining(method -> {
      if (HTTP_METHODS.contains(method)) {
        operations.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
      }
    }));

    assertThat(operations).isNotEmpty().isEqualTo(methods);
  }

  @Test
  void document_isOpenApi30WithInfoAndBearerSecurity() {
    assertThat(document.path("openapi").asText()).matches("3\\.0\\.\\d+");
    assertThat(document.path("info").path("title").asText()).isNotBlank();
    assertThat(document.path("info").path("version").asText()).isNotBlank();
    JsonNode scheme = document.path("components").path("securitySchemes").path("bearer");
    assertThat(scheme.path("type").asText()).isEqualTo("http");
    assertThat(scheme.path("scheme").asText()).isEqualTo("bearer");
    assertThat(document.path("security").toString()).isEqualTo("[{\"bearer\":[]}]");
  }

  @Test
  void operations_haveUniqueIdsSummariesDeclaredPathParametersAndDescribedResponses() {
    Set<String> ids = new HashSet<>();
    forEachOperation((path, method, operation) -> {
      String where = method + " " + path;
      assertThat(ids.add(operation.path("operationId").asText())).as("unique operationId of %s", where).isTrue();
      assertThat(operation.path("summary").asText()).as("summary of %s", where).isNotBlank();
      Set<String> declared = new TreeSet<>();
      operation.path("parameters").forEach(parameter -> {
        assertThat(parameter.path("in").asText()).as("%s parameter %s", where, parameter).isIn("path", "query", "header");
        assertThat(parameter.has("schema")).as("%s parameter %s has a schema", where, parameter).isTrue();
        if (parameter.path("in").asText().equals("path")) {
          assertThat(parameter.path("required").asBoolean()).as("%s path parameter required", where).isTrue();
          declared.add(parameter.path("name").asText());
        }
      });
      Set<String> inTemplate = new TreeSet<>();
      Matcher matcher = TEMPLATE.matcher(path);
      while (matcher.find()) {
        inTemplate.add(matcher.group(1));
      }
      assertThat(declared).as("path parameters of %s", where).isEqualTo(inTemplate);
      assertThat(operation.path("responses").size()).as("responses of %s", where).isPositive();
      operation.path("responses").properties().forEach(response -> {
        assertThat(response.getKey()).as("status of %s", where).matches("[1-5]\\d\\d");
        JsonNode resolved = resolve(response.getValue());
        assertThat(resolved.path("description").asText()).as("%s %s description", where, response.getKey()).isNotBlank();
        if (response.getKey().charAt(0) >= '4') {
          assertThat(resolve(resolved.path("content").path("application/json").path("schema")))
              .as("%s %s is an ApiError", where, response.getKey())
              .isEqualTo(document.path("components").path("schemas").path("ApiError"));
        }
      });
      for (String common : List.of("400", "401", "500")) {
        assertThat(operation.path("responses").has(common)).as("%s answers %s", where, common).isTrue();
      }
    });
  }

  @Test
  void roles_theReadTokenCallsTheGetsOnlyAndEveryOtherOperationAnswers403() {
    forEachOperation((path, method, operation) -> {
      List<String> roles = new ArrayList<>();
      operation.path("x-roles").forEach(role -> roles.add(role.asText()));
      assertThat(roles).as("x-roles of %s %s", method, path).contains(Roles.ADMIN);
      if (method.equals("GET")) {
        assertThat(roles).as("x-roles of %s %s", method, path).contains(Roles.READ);
        assertThat(operation.path("responses").has("403")).isFalse();
      } else {
        assertThat(roles).as("x-roles of %s %s", method, path).doesNotContain(Roles.READ);
        assertThat(operation.path("responses").has("403")).as("%s %s answers 403", method, path).isTrue();
      }
    });
  }

  @Test
  void paramValues_areBoundedToTheConfiguredLength() throws Exception {
    JsonNode values = JSON.readTree(OpenApiDocument.json(77)).at("/components/schemas/ParamValues/additionalProperties/anyOf/0");

    assertThat(values.path("type").asText()).isEqualTo("string");
    assertThat(values.path("maxLength").asInt()).isEqualTo(77);
  }

  @Test
  void requestBodies_areJsonObjectsThatRefuseUnknownFields() {
    List<String> withBody = new ArrayList<>();
    forEachOperation((path, method, operation) -> {
      JsonNode body = operation.path("requestBody");
      if (body.isMissingNode()) {
        return;
      }
      withBody.add(method + " " + path);
      assertThat(body.path("content").fieldNames()).toIterable().containsExactly("application/json");
      JsonNode schema = resolve(body.path("content").path("application/json").path("schema"));
      assertThat(schema.path("type").asText()).isEqualTo("object");
      assertThat(schema.path("additionalProperties").isBoolean() && !schema.path("additionalProperties").asBoolean())
          .as("%s %s refuses unknown fields", method, path)
          .isTrue();
      assertThat(operation.path("responses").has("413")).isTrue();
      assertThat(operation.path("responses").has("415")).isTrue();
    });
    assertThat(withBody).containsExactlyInAnyOrder("PUT /v1/keys/{key}", "POST /v1/refresh", "PUT /v1/templates/{name}");
  }

  @Test
  void rules_areStatedWhereTheyApply() {
    JsonNode schemas = document.path("components").path("schemas");
    JsonNode key = schemas.path("Key");
    assertThat(key.path("pattern").asText()).isEqualTo(OpenApiRules.KEY_PATTERN);
    assertThat(key.path(OpenApiRules.MAX_UTF8_BYTES_EXTENSION).asInt()).isEqualTo(OpenApiRules.KEY_MAX_UTF8_BYTES);
    JsonNode registration = schemas.path("KeyRegistrationRequest");
    assertThat(registration.path("required")).extracting(JsonNode::asText).containsExactlyInAnyOrder("source", "ttl");
    assertThat(registration.path("properties").path("ttl").path("pattern").asText()).isEqualTo(OpenApiRules.TTL_PATTERN);
    assertThat(registration.path("properties").path("ttl").path(OpenApiRules.MIN_DURATION_EXTENSION).asText()).isEqualTo("PT1S");
    assertThat(registration.path("properties").path("ttl").path(OpenApiRules.MAX_DURATION_EXTENSION).asText()).isEqualTo("PT720H");
    assertThat(registration.path("properties").path("policy").path("enum")).extracting(JsonNode::asText).containsExactly("hot", "always");
    assertThat(resolve(registration.path("properties").path("params")).path("type").asText()).isEqualTo("object");
    JsonNode template = schemas.path("TemplateRequest");
    assertThat(template.path("required")).extracting(JsonNode::asText).containsExactlyInAnyOrder("pattern", "source", "ttl");
    assertThat(schemas.path("TemplateName").path("pattern").asText()).isEqualTo(OpenApiRules.TEMPLATE_NAME_PATTERN);
    assertThat(schemas.path("ApiError").path("required")).extracting(JsonNode::asText).containsExactlyInAnyOrder("code", "message");
    JsonNode unavailable = document.path("components").path("responses").path("Unavailable");
    assertThat(unavailable.path("headers").has("Retry-After")).isTrue();
    forEachOperation((path, method, operation) -> operation.path("parameters").forEach(parameter -> {
      if (parameter.path("in").asText().equals("path") && parameter.path("name").asText().equals("key")) {
        assertThat(parameter.path("schema").path("$ref").asText()).isEqualTo("#/components/schemas/Key");
      }
    }));
  }

  @Test
  void references_allResolve() {
    List<String> refs = new ArrayList<>();
    collectRefs(document, refs);

    assertThat(refs).isNotEmpty();
    for (String ref : refs) {
      assertThat(ref).startsWith("#/components/");
      assertThat(document.at(ref.substring(1)).isMissingNode()).as("%s resolves", ref).isFalse();
    }
  }

  // ---------------------------------------------------------------------------------------------

  private interface OperationCheck {
    void check(String path, String method, JsonNode operation);
  }

  private static void forEachOperation(OperationCheck check) {
    document.path("paths").properties().forEach(path -> path.getValue().properties().forEach(entry -> {
      if (HTTP_METHODS.contains(entry.getKey())) {
        check.check(path.getKey(), entry.getKey().toUpperCase(Locale.ROOT), entry.getValue());
      }
    }));
  }

  /** {@code METHOD /path} for every resource method, its path's regular expressions left out. */
  private static void collect(Resource resource, String parent, Set<String> into) {
    String path = normalise(parent + "/" + resource.getPath());
    for (ResourceMethod method : resource.getResourceMethods()) {
      into.add(method.getHttpMethod() + " " + path);
    }
    for (Resource child : resource.getChildResources()) {
      collect(child, path, into);
    }
  }

  private static String normalise(String path) {
    String plain = TEMPLATE.matcher(path).replaceAll("{$1}").replaceAll("/+", "/");
    return plain.length() > 1 && plain.endsWith("/") ? plain.substring(0, plain.length() - 1) : plain;
  }

  private static JsonNode resolve(JsonNode node) {
    JsonNode at = node;
    while (at.has("$ref")) {
      at = document.at(at.path("$ref").asText().substring(1));
    }
    return at;
  }

  private static void collectRefs(JsonNode node, List<String> into) {
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        if (field.getKey().equals("$ref")) {
          into.add(field.getValue().asText());
        } else {
          collectRefs(field.getValue(), into);
        }
      }
    } else if (node.isArray()) {
      node.forEach(element -> collectRefs(element, into));
    }
  }
}
