package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.api.OpenApiDocument;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The two roles of the admin API, over every resource method of the real service: the admin token
 * may do everything; the read token may GET everything and answers 403 (JSON, nothing changed) on
 * every PUT, POST and DELETE; a missing or wrong token answers 401 everywhere. {@link #ENDPOINTS}
 * names one request per resource method, and {@link #endpoints_coverEveryResourceMethod()} fails
 * when a resource gains a method the table does not cover.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class AdminRolesIT {

  private static final String READ_TOKEN = "test-read-token-0123456789";

  private static final TestApp APP =
      TestApp.create(
          "admin_roles",
          List.of(
              "CREATE TABLE test_product (id bigint primary key, name text, price numeric, category text, tags text[])",
              "INSERT INTO test_product VALUES (1, 'Laptop', 999.90, 'electronics', ARRAY['portable'])"),
          "admin.readToken",
          READ_TOKEN);
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** A key and a template that every request may address; their TTLs are long, so nothing refreshes them. */
  private static final String EXISTING_KEY = "roles:product:1";
  private static final String EXISTING_TEMPLATE = "roles-products";
  private static final String KEY_BODY = "{\"source\":\"product-by-id\",\"params\":{\"id\":1},\"ttl\":\"PT10M\"}";
  private static final String COUNTED_BODY = "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT10M\"}";
  private static final String TEMPLATE_BODY = "{\"pattern\":\"roles:tpl:{id}\",\"source\":\"product-by-id\",\"ttl\":\"PT10M\"}";

  private static final AtomicInteger UNIQUE = new AtomicInteger();

  enum Credentials {
    ADMIN("Bearer " + TestApp.TOKEN),
    READ("Bearer " + READ_TOKEN),
    NONE(null),
    WRONG("Bearer wrong-token-0123456789abcdef"),
    // The read token with one character more: must not pass as a prefix match.
    READ_EXTENDED("Bearer " + READ_TOKEN + "x");

    final String header;

    Credentials(String header) {
      this.header = header;
    }
  }

  /**
   * One request per resource method. {@code path} gets a name of its own for each case, so that
   * the admin's successful changes never get in the way of another case; {@code prepare} creates
   * what that request needs (as admin); {@code adminStatus} is what the admin gets.
   */
  private record Endpoint(
      String resourceMethod,
      String method,
      Function<String, String> path,
      String body,
      int adminStatus,
      PrepareStep prepare) {
    boolean isChange() {
      return !"GET".equals(method);
    }

    @Override
    public String toString() {
      return method + " " + resourceMethod;
    }
  }

  @FunctionalInterface
  private interface PrepareStep {
    void run(String unique) throws Exception;
  }

  private static final PrepareStep NOTHING = unique -> {};

  private static final List<Endpoint> ENDPOINTS =
      List.of(
          new Endpoint("SourceResource#list", "GET", u -> "/v1/sources", null, 200, NOTHING),
          new Endpoint("SourceResource#activity", "GET", u -> "/v1/sources/activity", null, 200, NOTHING),
          new Endpoint("FeedsResource#feeds", "GET", u -> "/v1/feeds", null, 200, NOTHING),
          new Endpoint("OverviewResource#overview", "GET", u -> "/v1/overview", null, 200, NOTHING),
          new Endpoint("KeyResource#list", "GET", u -> "/v1/keys?limit=10", null, 200, NOTHING),
          new Endpoint("KeyResource#get", "GET", u -> "/v1/keys/" + TestApp.pathOf(EXISTING_KEY), null, 200, NOTHING),
          new Endpoint("KeyResource#register", "PUT", u -> "/v1/keys/" + TestApp.pathOf("roles:new:" + u), KEY_BODY, 201, NOTHING),
          // The existing key replaced: 200 for the admin, a refused replacement leaves it as it was.
          new Endpoint("KeyResource#register (replace)", "PUT", u -> "/v1/keys/" + TestApp.pathOf(EXISTING_KEY), KEY_BODY, 200, NOTHING),
          new Endpoint("KeyResource#registerWithoutKey", "PUT", u -> "/v1/keys", KEY_BODY, 422, NOTHING),
          new Endpoint(
              "KeyResource#delete",
              "DELETE",
              u -> "/v1/keys/" + TestApp.pathOf("roles:doomed:" + u) + "?evict=true",
              null,
              204,
              u -> putKey("roles:doomed:" + u, COUNTED_BODY)),
          new Endpoint(
              "KeyResource#refresh",
              "POST",
              u -> "/v1/keys/" + TestApp.pathOf("roles:refreshed:" + u) + "/refresh",
              "",
              200,
              u -> putKey("roles:refreshed:" + u, COUNTED_BODY)),
          new Endpoint(
              "RefreshResource#refresh",
              "POST",
              u -> "/v1/refresh",
              "{\"keys\":[\"" + EXISTING_KEY + "\"]}",
              200,
              NOTHING),
          new Endpoint("HotResource#hottest", "GET", u -> "/v1/hot?limit=5", null, 200, NOTHING),
          new Endpoint("HotResource#uncovered", "GET", u -> "/v1/hot/uncovered?limit=5", null, 200, NOTHING),
          new Endpoint("AuditResource#report", "GET", u -> "/v1/audit?window=PT5M", null, 200, NOTHING),
          new Endpoint("ChangeResource#list", "GET", u -> "/v1/changes?limit=5", null, 200, NOTHING),
          new Endpoint("WhoAmIResource#whoAmI", "GET", u -> "/v1/whoami", null, 200, NOTHING),
          new Endpoint("OpenApiResource#document", "GET", u -> "/v1/openapi.json", null, 200, NOTHING),
          new Endpoint("TemplateResource#list", "GET", u -> "/v1/templates", null, 200, NOTHING),
          new Endpoint("TemplateResource#get", "GET", u -> "/v1/templates/" + EXISTING_TEMPLATE, null, 200, NOTHING),
          new Endpoint(
              "TemplateResource#put",
              "PUT",
              u -> "/v1/templates/roles-new-" + u,
              "{\"pattern\":\"roles:put:{id}\",\"source\":\"product-by-id\",\"ttl\":\"PT10M\"}",
              201,
              NOTHING),
          new Endpoint("TemplateResource#putWithoutName", "PUT", u -> "/v1/templates", TEMPLATE_BODY, 422, NOTHING),
          new Endpoint(
              "TemplateResource#delete",
              "DELETE",
              u -> "/v1/templates/roles-doomed-" + u,
              null,
              204,
              u -> expect(send("PUT", "/v1/templates/roles-doomed-" + u, TEMPLATE_BODY.replace("roles:tpl:", "roles:doomed:" + u + ":"), Credentials.ADMIN), 201)),
          new Endpoint("PrewarmResource#status", "GET", u -> "/v1/prewarm", null, 200, NOTHING),
          new Endpoint("PrewarmResource#start", "POST", u -> "/v1/prewarm", "", 202, u -> awaitNoPrewarmRunning()));

  @BeforeAll
  static void createExistingKeyAndTemplate() throws Exception {
    putKey(EXISTING_KEY, KEY_BODY);
    expect(send("PUT", "/v1/templates/" + EXISTING_TEMPLATE, TEMPLATE_BODY, Credentials.ADMIN), 201);
    assertThat(APP.get(EXISTING_KEY)).contains("Laptop");
  }

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (Endpoint endpoint : ENDPOINTS) {
      for (Credentials credentials : Credentials.values()) {
        cases.add(Arguments.of(endpoint, credentials));
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} as {1}")
  @MethodSource("cases")
  void endpoint_byRole_allowedRefusedOrUnauthenticated(Endpoint endpoint, Credentials credentials) throws Exception {
    String unique = Integer.toString(UNIQUE.incrementAndGet());
    endpoint.prepare().run(unique);
    State before = State.read(unique);

    Reply reply = send(endpoint.method(), endpoint.path().apply(unique), endpoint.body(), credentials);

    switch (credentials) {
      case ADMIN -> expect(reply, endpoint.adminStatus());
      case READ -> {
        if (endpoint.isChange()) {
          assertError(reply, 403);
          assertThat(reply.json().path("message").asText()).contains("admin token");
          assertThat(State.read(unique)).as("a refused change changes nothing").isEqualTo(before);
        } else {
          expect(reply, endpoint.adminStatus());
        }
      }
      case NONE, WRONG, READ_EXTENDED -> {
        assertError(reply, 401);
        assertThat(reply.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
        assertThat(State.read(unique)).as("an unauthenticated request changes nothing").isEqualTo(before);
      }
    }
  }

  @Test
  void endpoints_coverEveryResourceMethod() {
    Set<String> declared = new TreeSet<>();
    for (Class<?> resource : OpenApiDocument.RESOURCES) {
      for (Method method : resource.getDeclaredMethods()) {
        if (method.isAnnotationPresent(GET.class)
            || method.isAnnotationPresent(PUT.class)
            || method.isAnnotationPresent(POST.class)
            || method.isAnnotationPresent(DELETE.class)) {
          declared.add(resource.getSimpleName() + "#" + method.getName());
        }
      }
    }
    Set<String> covered =
        ENDPOINTS.stream().map(e -> e.resourceMethod().replaceAll(" .*", "")).collect(Collectors.toCollection(TreeSet::new));

    assertThat(covered).isEqualTo(declared);
  }

  // ---------------------------------------------------------------------------------------------
  // What a refused request must leave as it was.

  /**
   * The registry and templates as listed, the existing key's value and metadata in Redis, how
   * often the counted source ran, the refill's start, and the keys and templates this case's
   * request addresses.
   */
  private record State(
      JsonNode keys,
      JsonNode templates,
      String existingValue,
      Map<String, String> existingMeta,
      long sourceRuns,
      String prewarmStarted,
      int caseKeysPresent) {

    static State read(String unique) throws Exception {
      JsonNode keys = listAll("/v1/keys?limit=1000");
      JsonNode templates = listAll("/v1/templates?limit=1000");
      String prewarmStarted = okJson(send("GET", "/v1/prewarm", null, Credentials.ADMIN)).at("/prewarm/startedAt").asText();
      int present = 0;
      for (String key : List.of("roles:new:" + unique, "roles:doomed:" + unique, "roles:refreshed:" + unique)) {
        present += APP.get(key) == null ? 0 : 1;
      }
      return new State(
          keys,
          templates,
          APP.get(EXISTING_KEY),
          APP.meta(EXISTING_KEY),
          APP.database().executionsOf("counted_source"),
          prewarmStarted,
          present);
    }
  }

  private static JsonNode listAll(String path) throws Exception {
    JsonNode items = okJson(send("GET", path, null, Credentials.ADMIN)).get("items");
    assertThat(items.size()).as("the listing fits one page").isLessThan(1000);
    return items;
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers.

  private record Reply(int status, java.net.http.HttpHeaders headers, String body) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new AssertionError("response body is not JSON: " + body, e);
      }
    }
  }

  private static Reply send(String method, String pathAndQuery, String body, Credentials credentials)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + EXTENSION.getLocalPort() + pathAndQuery))
            .timeout(Duration.ofSeconds(30))
            .header("Accept", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    if (credentials.header != null) {
      request.header("Authorization", credentials.header);
    }
    HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    return new Reply(response.statusCode(), response.headers(), response.body());
  }

  private static void putKey(String key, String body) throws Exception {
    expect(send("PUT", "/v1/keys/" + TestApp.pathOf(key), body, Credentials.ADMIN), 201);
  }

  private static void expect(Reply reply, int status) {
    assertThat(reply.status()).as("status; body: %s", reply.body()).isEqualTo(status);
  }

  private static JsonNode okJson(Reply reply) {
    expect(reply, 200);
    return reply.json();
  }

  private static void assertError(Reply reply, int status) {
    expect(reply, status);
    assertThat(reply.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    JsonNode body = reply.json();
    assertThat(body.path("code").asInt()).as("code in %s", reply.body()).isEqualTo(status);
    assertThat(body.path("message").asText()).as("message in %s", reply.body()).isNotBlank();
  }

  private static void awaitNoPrewarmRunning() {
    await("no refill running")
        .atMost(Duration.ofSeconds(60))
        .until(() -> !okJson(send("GET", "/v1/prewarm", null, Credentials.ADMIN)).at("/prewarm/state").asText().equals("running"));
  }
}
