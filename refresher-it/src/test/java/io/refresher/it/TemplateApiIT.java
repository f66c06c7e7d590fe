package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.persistence.JdbiTemplateRepository;
import io.refresher.registry.InvalidRegistrationException;
import io.refresher.registry.KeyTemplate;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.failure.RegistryUnavailableException;
import io.refresher.registry.TemplateCatalog;
import io.refresher.registry.TemplatePattern;
import io.refresher.testing.TestApp;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The template API against the real service on real PostgreSQL and Redis: every broken rule
 * answers its 4xx with a JSON body naming the field and the rule, and changes nothing (the listing,
 * the attempted template, the template a rejected request tried to replace, and the audit trail
 * stay as they were); the token guards every endpoint; the lifecycle stores, replaces (keeping the
 * creation time), pages, deletes and audits.
 *
 * <p>Requests go out through {@link HttpClient} so that paths, headers and bodies reach the server
 * byte for byte as written here.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class TemplateApiIT {

  private static final TestApp APP = TestApp.create("template_api", List.of());
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final String BEARER = "Bearer " + TestApp.TOKEN;

  /** A template that rejected requests try to replace. */
  private static final String EXISTING = "existing";

  private static final String EXISTING_BODY =
      "{\"pattern\":\"existing:product:{id}\",\"source\":\"product-by-id\",\"ttl\":\"PT10M\"}";
  private static final String VALID_BODY = "{\"pattern\":\"valid:{id}\",\"source\":\"product-by-id\",\"ttl\":\"PT5M\"}";

  @BeforeAll
  static void registerExistingTemplate() throws Exception {
    Reply created = send("PUT", "/v1/templates/" + EXISTING, "application/json", EXISTING_BODY, BEARER);
    assertThat(created.status()).as(created.body()).isEqualTo(201);
  }

  // ---------------------------------------------------------------------------------------------
  // Body rules: tried as a new template and as a replacement of the existing one.

  static Stream<Arguments> invalidBodies() {
    return Stream.of(
        Arguments.of("pattern missing", "{\"source\":\"product-by-id\",\"ttl\":\"PT5M\"}", 422, "pattern"),
        Arguments.of("pattern empty", body("", "product-by-id", null, "PT5M"), 422, "pattern"),
        Arguments.of("pattern of 513 bytes", body("p".repeat(509) + "{id}", "product-by-id", null, "PT5M"), 422, "pattern"),
        Arguments.of("pattern with a control character", body("p\\u0001:{id}", "product-by-id", null, "PT5M"), 422, "pattern"),
        Arguments.of("pattern with the reserved prefix", body("refresher:{id}", "product-by-id", null, "PT5M"), 422, "pattern"),
        Arguments.of("pattern without placeholder", body("product:7", "counted", null, "PT5M"), 422, "pattern"),
        Arguments.of("placeholder name invalid", body("product:{1id}", "product-by-id", null, "PT5M"), 422, "pattern"),
        Arguments.of(
            "placeholder used twice",
            body("cat:{category}:{category}", "products-in-category", "{\"min_price\":1}", "PT5M"),
            422,
            "pattern"),
        Arguments.of(
            "placeholders adjacent",
            body("cat:{category}{min_price}", "products-in-category", null, "PT5M"),
            422,
            "pattern"),
        Arguments.of("unmatched '{'", body("product:{id", "product-by-id", null, "PT5M"), 422, "pattern"),
        Arguments.of("unmatched '}'", body("product:{id}}", "product-by-id", null, "PT5M"), 422, "pattern"),
        Arguments.of("placeholder not a source parameter", body("product:{sku}", "product-by-id", null, "PT5M"), 422, "pattern"),
        Arguments.of("pattern not a string", "{\"pattern\":{\"a\":1},\"source\":\"product-by-id\",\"ttl\":\"PT5M\"}", 400, "pattern"),
        Arguments.of("source unknown", body("x:{id}", "no-such-source", null, "PT5M"), 422, "source"),
        Arguments.of("source missing", "{\"pattern\":\"x:{id}\",\"ttl\":\"PT5M\"}", 422, "source"),
        Arguments.of(
            "fixed parameter missing", body("cat:{category}", "products-in-category", null, "PT5M"), 422, "params.min_price"),
        Arguments.of(
            "fixed parameter of the wrong type",
            body("cat:{category}", "products-in-category", "{\"min_price\":\"cheap\"}", "PT5M"),
            422,
            "params.min_price"),
        Arguments.of(
            "placeholder also given as a parameter",
            body("x:{id}", "product-by-id", "{\"id\":7}", "PT5M"),
            422,
            "params.id"),
        Arguments.of("unknown parameter", body("x:{id}", "product-by-id", "{\"colour\":\"red\"}", "PT5M"), 422, "params.colour"),
        Arguments.of("params not an object", body("x:{id}", "product-by-id", "[1]", "PT5M"), 400, "params"),
        Arguments.of("ttl below 1 s", body("x:{id}", "product-by-id", null, "PT0.5S"), 422, "ttl"),
        Arguments.of("ttl above 30 days", body("x:{id}", "product-by-id", null, "P31D"), 422, "ttl"),
        Arguments.of("ttl missing", "{\"pattern\":\"x:{id}\",\"source\":\"product-by-id\"}", 422, "ttl"),
        Arguments.of("ttl malformed", body("x:{id}", "product-by-id", null, "5m"), 400, "ttl"),
        Arguments.of(
            "unknown field", "{\"pattern\":\"x:{id}\",\"source\":\"product-by-id\",\"ttl\":\"PT5M\",\"policy\":\"hot\"}", 400, "policy"),
        Arguments.of("malformed JSON", "{\"pattern\":", 400, "body"),
        Arguments.of("empty body", "", 422, "body"),
        Arguments.of("JSON null", "null", 422, "body"),
        Arguments.of("JSON array", "[]", 400, "body"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidBodies")
  void put_invalidBodyForNewName_rejectedNamingFieldAndNothingChanged(String rule, String body, int status, String field)
      throws Exception {
    String name = "new-" + rule.replaceAll("[^a-z0-9]+", "-");
    State before = state();

    Reply reply = send("PUT", "/v1/templates/" + name, "application/json", body, BEARER);

    assertRejected(reply, status, field);
    assertUnchanged(before);
    assertUnknown(name);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidBodies")
  void put_invalidBodyReplacingExisting_rejectedNamingFieldAndTemplateUnchanged(
      String rule, String body, int status, String field) throws Exception {
    State before = state();

    Reply reply = send("PUT", "/v1/templates/" + EXISTING, "application/json", body, BEARER);

    assertRejected(reply, status, field);
    assertUnchanged(before);
  }

  @Test
  void put_severalRulesBroken_everyFieldNamedInOneResponse() throws Exception {
    State before = state();

    Reply reply =
        send(
            "PUT",
            "/v1/templates/Bad%20Name",
            "application/json",
            body("refresher:{id}{x}", "no-such-source", null, "PT0.1S"),
            BEARER);

    assertRejected(reply, 422, "name");
    assertRejected(reply, 422, "pattern");
    assertRejected(reply, 422, "source");
    assertRejected(reply, 422, "ttl");
    assertThat(reply.body()).contains("must not start with 'refresher:'").contains("adjacent placeholders {id}{x}");
    assertUnchanged(before);
  }

  @Test
  void put_placeholderNotASourceParameter_ruleNamesWhatTheSourceTakes() throws Exception {
    Reply reply = send("PUT", "/v1/templates/skus", "application/json", body("product:{sku}", "product-by-id", null, "PT5M"), BEARER);

    assertRejected(reply, 422, "pattern");
    assertThat(rules(reply, "pattern"))
        .contains("placeholder {sku} is not a parameter of source 'product-by-id' (it takes [id])");
  }

  @Test
  void put_patternOfAnotherTemplate_rejectedNamingThatTemplateAndNothingChanged() throws Exception {
    State before = state();

    Reply reply = send("PUT", "/v1/templates/copycat", "application/json", EXISTING_BODY, BEARER);

    assertRejected(reply, 422, "pattern");
    assertThat(rules(reply, "pattern")).contains("is already the pattern of template 'existing'");
    assertUnchanged(before);
    assertUnknown("copycat");
  }

  @Test
  void put_textPlainContentType_415NamingContentTypeAndNothingChanged() throws Exception {
    State before = state();

    Reply created = send("PUT", "/v1/templates/plain", "text/plain", VALID_BODY, BEARER);
    Reply replaced = send("PUT", "/v1/templates/" + EXISTING, "text/plain", VALID_BODY, BEARER);

    assertRejected(created, 415, "Content-Type");
    assertRejected(replaced, 415, "Content-Type");
    assertUnchanged(before);
    assertUnknown("plain");
  }

  // ---------------------------------------------------------------------------------------------
  // Name rules: a valid body under an invalid name.

  static Stream<Arguments> invalidNames() {
    return Stream.of(
        Arguments.of("upper case", "/v1/templates/Products"),
        Arguments.of("leading dash", "/v1/templates/-products"),
        Arguments.of("space", "/v1/templates/a%20b"),
        Arguments.of("65 characters", "/v1/templates/" + "a".repeat(65)),
        Arguments.of("encoded slash", "/v1/templates/a%2Fb"),
        Arguments.of("raw slash", "/v1/templates/a/b"),
        Arguments.of("encoded semicolon", "/v1/templates/a%3Bb"),
        Arguments.of("raw semicolon (a path parameter)", "/v1/templates/valid;b"),
        Arguments.of("accented letter", "/v1/templates/caf%C3%A9"),
        Arguments.of("no name", "/v1/templates"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidNames")
  void put_invalidName_422NamingNameAndNothingChanged(String rule, String path) throws Exception {
    State before = state();

    Reply reply = send("PUT", path, "application/json", VALID_BODY, BEARER);

    assertRejected(reply, 422, "name");
    assertUnchanged(before);
    assertUnknown("valid");
  }

  @Test
  void put_nameOf64Characters_accepted() throws Exception {
    String name = "n".repeat(64);

    Reply reply = send("PUT", "/v1/templates/" + name, "application/json", body("long-name:{id}", "product-by-id", null, "PT5M"), BEARER);

    assertThat(reply.status()).as(reply.body()).isEqualTo(201);
    assertThat(reply.json().at("/template/name").asText()).isEqualTo(name);
    assertThat(send("DELETE", "/v1/templates/" + name, null, null, BEARER).status()).isEqualTo(204);
  }

  @Test
  void put_beyondTheLimitOfTemplates_422NamingNameButReplacingStillWorks() throws Exception {
    long present = count("SELECT count(*) FROM refresher.refresher_template");
    APP.database()
        .execute(
            "INSERT INTO refresher.refresher_template (name, pattern, source, ttl_ms, created_at, updated_at) "
                + "SELECT 'zz-filler-' || i, 'zz-filler-' || i || ':{id}', 'product-by-id', 60000, now(), now() "
                + "FROM generate_series(1, " + (1000 - present) + ") AS i");
    try {
      long audits = count("SELECT count(*) FROM refresher.refresher_audit");

      Reply rejected = send("PUT", "/v1/templates/one-too-many", "application/json", VALID_BODY, BEARER);
      Reply replaced = send("PUT", "/v1/templates/" + EXISTING, "application/json", EXISTING_BODY, BEARER);

      assertRejected(rejected, 422, "name");
      assertThat(rules(rejected, "name")).anySatisfy(rule -> assertThat(rule).contains("1000"));
      assertThat(count("SELECT count(*) FROM refresher.refresher_template")).isEqualTo(1000);
      assertThat(replaced.status()).as(replaced.body()).isEqualTo(200);
      assertThat(count("SELECT count(*) FROM refresher.refresher_audit")).isEqualTo(audits + 1);
    } finally {
      APP.database().execute("DELETE FROM refresher.refresher_template WHERE name LIKE 'zz-filler-%'");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Reading and listing: unknown names and parameters.

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("unknownTemplateRequests")
  void unknownName_404NamingName(String method, String path) throws Exception {
    State before = state();

    Reply reply = send(method, path, null, null, BEARER);

    assertRejected(reply, 404, "name");
    assertThat(reply.json().get("message").asText()).contains("does not exist");
    assertUnchanged(before);
  }

  static Stream<Arguments> unknownTemplateRequests() {
    return Stream.of(
        Arguments.of("GET", "/v1/templates/never-registered"),
        Arguments.of("DELETE", "/v1/templates/never-registered"),
        Arguments.of("GET", "/v1/templates/Not%20A%20Name"));
  }

  @ParameterizedTest(name = "limit={0}")
  @ValueSource(strings = {"0", "-1", "1001", "abc", "1.5", "99999999999"})
  void list_limitOutOfRangeOrNotANumber_422NamingLimit(String limit) throws Exception {
    Reply reply = send("GET", "/v1/templates?limit=" + limit, null, null, BEARER);

    assertRejected(reply, 422, "limit");
  }

  // ---------------------------------------------------------------------------------------------
  // Authentication: every endpoint, every kind of bad credential, checked before anything else.

  static Stream<Arguments> unauthenticatedRequests() {
    String basic =
        "Basic " + Base64.getEncoder().encodeToString(("admin:" + TestApp.TOKEN).getBytes(StandardCharsets.UTF_8));
    Map<String, String> credentials = new LinkedHashMap<>();
    credentials.put("no Authorization header", null);
    credentials.put("wrong token", "Bearer wrong-token-0123456789");
    credentials.put("token with an extra character", BEARER + "x");
    credentials.put("token as Basic credentials", basic);
    credentials.put("bare token without scheme", TestApp.TOKEN);
    credentials.put("Bearer with empty token", "Bearer ");
    String[][] endpoints = {
      {"PUT", "/v1/templates/unauthenticated", "application/json", VALID_BODY},
      {"PUT", "/v1/templates/" + EXISTING, "application/json", VALID_BODY},
      {"PUT", "/v1/templates/unauthenticated", "application/json", "{not json"},
      {"PUT", "/v1/templates/unauthenticated", "text/plain", VALID_BODY},
      {"PUT", "/v1/templates/Bad%20Name", "application/json", VALID_BODY},
      {"PUT", "/v1/templates", "application/json", VALID_BODY},
      {"GET", "/v1/templates/" + EXISTING, null, null},
      {"GET", "/v1/templates/never-registered", null, null},
      {"GET", "/v1/templates", null, null},
      {"GET", "/v1/templates?limit=abc", null, null},
      {"DELETE", "/v1/templates/" + EXISTING, null, null},
    };
    List<Arguments> cases = new ArrayList<>();
    credentials.forEach(
        (name, header) -> {
          for (String[] endpoint : endpoints) {
            cases.add(Arguments.of(name, endpoint[0], endpoint[1], endpoint[2], endpoint[3], header));
          }
        });
    return cases.stream();
  }

  @ParameterizedTest(name = "{1} {2} [{3}]: {0}")
  @MethodSource("unauthenticatedRequests")
  void anyEndpoint_badCredentials_401NamingAuthorizationAndNothingChanged(
      String credentials, String method, String path, String contentType, String body, String authorization)
      throws Exception {
    State before = state();

    Reply reply = send(method, path, contentType, body, authorization);

    assertRejected(reply, 401, "Authorization");
    assertThat(reply.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
    assertThat(reply.body()).doesNotContain("existing:product");
    assertUnchanged(before);
    assertUnknown("unauthenticated");
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle.

  @Test
  void lifecycle_createGetReplaceDelete_storedViewedAuditedAndGone() throws Exception {
    String name = "products";

    Reply created =
        send("PUT", "/v1/templates/" + name, "application/json", body("product:{id}", "product-by-id", null, "PT10M"), BEARER);

    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.contentType()).startsWith("application/json");
    assertThat(created.json().get("created").asBoolean()).isTrue();
    JsonNode view = created.json().get("template");
    assertThat(view.get("name").asText()).isEqualTo(name);
    assertThat(view.get("pattern").asText()).isEqualTo("product:{id}");
    assertThat(view.get("placeholders")).isEqualTo(JSON.readTree("[\"id\"]"));
    assertThat(view.get("source").asText()).isEqualTo("product-by-id");
    assertThat(view.get("params")).isEqualTo(JSON.readTree("{}"));
    assertThat(view.get("ttl").asText()).isEqualTo("PT10M");
    Instant createdAt = instant(view, "createdAt");
    assertThat(instant(view, "updatedAt")).isEqualTo(createdAt);
    assertThat(createdAt).isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(1));

    Reply get = send("GET", "/v1/templates/" + name, null, null, BEARER);
    assertThat(get.status()).as(get.body()).isEqualTo(200);
    assertThat(get.json()).isEqualTo(view);

    // The replacement's update time must be later than the creation time: wait for the clock.
    org.awaitility.Awaitility.await()
        .pollInterval(Duration.ofMillis(1))
        .atMost(Duration.ofSeconds(5))
        .until(() -> Instant.now().isAfter(createdAt));
    Reply replaced =
        send(
            "PUT",
            "/v1/templates/" + name,
            "application/json",
            body("item:{{{id}}}:detail", "product-by-id", null, "PT1M"),
            BEARER);

    assertThat(replaced.status()).as(replaced.body()).isEqualTo(200);
    assertThat(replaced.json().get("created").asBoolean()).isFalse();
    JsonNode after = replaced.json().get("template");
    assertThat(after.get("pattern").asText()).isEqualTo("item:{{{id}}}:detail");
    assertThat(after.get("placeholders")).isEqualTo(JSON.readTree("[\"id\"]"));
    assertThat(after.get("ttl").asText()).isEqualTo("PT1M");
    assertThat(instant(after, "createdAt")).as("creation time kept").isEqualTo(createdAt);
    assertThat(instant(after, "updatedAt")).isAfter(createdAt);
    assertThat(send("GET", "/v1/templates/" + name, null, null, BEARER).json()).isEqualTo(after);

    Reply deleted = send("DELETE", "/v1/templates/" + name, null, null, BEARER);
    assertThat(deleted.status()).as(deleted.body()).isEqualTo(204);
    assertThat(deleted.body()).isEmpty();
    assertUnknown(name);
    assertRejected(send("DELETE", "/v1/templates/" + name, null, null, BEARER), 404, "name");

    List<String> audit =
        strings(
            "SELECT action || ' ' || (detail->>'pattern') || ' ' || (detail->>'source') || ' ' || (detail->>'ttl') "
                + "FROM refresher.refresher_audit WHERE key = 'template:" + name + "' ORDER BY id");
    assertThat(audit)
        .containsExactly(
            "template-register product:{id} product-by-id PT10M",
            "template-replace item:{{{id}}}:detail product-by-id PT1M",
            "template-delete item:{{{id}}}:detail product-by-id PT1M");
  }

  @Test
  void put_fixedParams_convertedStoredAndShown() throws Exception {
    Reply created =
        send(
            "PUT",
            "/v1/templates/by-category",
            "application/json",
            body("category:{category}", "products-in-category", "{\"min_price\":\"9.5\"}", "PT2M"),
            BEARER);

    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.json().at("/template/params")).isEqualTo(JSON.readTree("{\"min_price\":9.5}"));
    assertThat(created.json().at("/template/placeholders")).isEqualTo(JSON.readTree("[\"category\"]"));
    assertThat(send("GET", "/v1/templates/by-category", null, null, BEARER).json().get("params"))
        .isEqualTo(JSON.readTree("{\"min_price\":9.5}"));
    assertThat(strings("SELECT params::text FROM refresher.refresher_template WHERE name = 'by-category'"))
        .containsExactly("{\"min_price\": 9.5}");
    assertThat(send("DELETE", "/v1/templates/by-category", null, null, BEARER).status()).isEqualTo(204);
  }

  @Test
  void list_pagesInNameOrder_nextPointsAtTheLastItem() throws Exception {
    List<String> names = List.of("page-c", "page-a", "page-e", "page-b", "page-d");
    for (String name : names) {
      Reply reply =
          send("PUT", "/v1/templates/" + name, "application/json", body(name + ":{id}", "product-by-id", null, "PT5M"), BEARER);
      assertThat(reply.status()).as(reply.body()).isEqualTo(201);
    }
    List<String> everything = namesOf(listAll());

    List<String> paged = new ArrayList<>();
    String after = "";
    for (int pages = 0; pages < 100; pages++) {
      Reply reply = send("GET", "/v1/templates?limit=2&after=" + URLEncoder.encode(after, StandardCharsets.UTF_8), null, null, BEARER);
      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
      List<String> page = namesOf(reply.json().get("items"));
      assertThat(page).hasSizeLessThanOrEqualTo(2);
      paged.addAll(page);
      JsonNode next = reply.json().get("next");
      if (page.size() < 2) {
        assertThat(next.isNull()).as("no next after a short page").isTrue();
        break;
      }
      assertThat(next.asText()).isEqualTo(page.get(1));
      after = next.asText();
    }

    assertThat(paged).isEqualTo(everything);
    assertThat(everything).isSorted();
    assertThat(everything).containsSubsequence("page-a", "page-b", "page-c", "page-d", "page-e");
    JsonNode firstTwo = send("GET", "/v1/templates?limit=2&after=page-", null, null, BEARER).json();
    assertThat(namesOf(firstTwo.get("items"))).containsExactly("page-a", "page-b");
    assertThat(firstTwo.get("items").get(0).get("pattern").asText()).isEqualTo("page-a:{id}");
    for (String name : names) {
      assertThat(send("DELETE", "/v1/templates/" + name, null, null, BEARER).status()).isEqualTo(204);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Storage: what the catalog reads back, and the store's own guards.

  @Test
  void storedTemplates_resolveKeysThroughACatalogReadingTheDatabase() throws Exception {
    Reply carts =
        send("PUT", "/v1/templates/carts", "application/json", body("user:{{{id}}}:cart", "product-by-id", null, "PT3M"), BEARER);
    Reply cheap =
        send(
            "PUT",
            "/v1/templates/cheap",
            "application/json",
            body("cheap:{category}", "products-in-category", "{\"min_price\":1}", "PT3M"),
            BEARER);
    assertThat(carts.status()).as(carts.body()).isEqualTo(201);
    assertThat(cheap.status()).as(cheap.body()).isEqualTo(201);
    TemplateCatalog catalog = new TemplateCatalog(repository(APP.parts().registryJdbi()), APP.parts().sources());

    catalog.reload();

    Registration cart = catalog.resolve("user:{42}:cart").orElseThrow();
    assertThat(cart.template()).isEqualTo("carts");
    assertThat(cart.policy()).isEqualTo(RefreshPolicy.HOT);
    assertThat(cart.params()).isEqualTo(Map.of("id", 42L));
    assertThat(cart.ttl()).isEqualTo(Duration.ofMinutes(3));
    assertThat(catalog.resolve("cheap:books").orElseThrow().params())
        .isEqualTo(Map.of("category", "books", "min_price", 1.0));
    assertThat(catalog.resolve("user:{abc}:cart")).isEmpty();
    assertThat(send("DELETE", "/v1/templates/carts", null, null, BEARER).status()).isEqualTo(204);
    assertThat(send("DELETE", "/v1/templates/cheap", null, null, BEARER).status()).isEqualTo(204);
  }

  @Test
  void repository_patternTakenMeanwhileByAnotherName_refusedByTheStoreNamingTheHolder() {
    // What a concurrent request that validated before the other committed meets: the UNIQUE index.
    JdbiTemplateRepository repository = repository(APP.parts().registryJdbi());
    Instant now = Instant.now();
    KeyTemplate copy =
        new KeyTemplate(
            "racer", TemplatePattern.parse("existing:product:{id}"), "product-by-id", Map.of(), Duration.ofMinutes(1), now, now);

    InvalidRegistrationException e = catchThrowableOfType(() -> repository.upsert(copy), InvalidRegistrationException.class);

    assertThat(e.errors()).extracting(error -> error.field() + " " + error.rule())
        .containsExactly("pattern is already the pattern of template 'existing'");
    assertThat(repository.find("racer")).isEmpty();
  }

  @Test
  void repository_databaseUnreachable_registryUnavailable() {
    JdbiTemplateRepository unreachable =
        repository(Jdbi.create("jdbc:postgresql://127.0.0.1:1/none?connectTimeout=2", "x", "y"));

    assertThatThrownBy(() -> unreachable.find("existing")).isInstanceOf(RegistryUnavailableException.class);
    assertThatThrownBy(unreachable::all).isInstanceOf(RegistryUnavailableException.class);
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers.

  private static String body(String pattern, String source, String params, String ttl) {
    StringBuilder json = new StringBuilder("{\"pattern\":\"").append(pattern).append("\",\"source\":\"").append(source).append('"');
    if (params != null) {
      json.append(",\"params\":").append(params);
    }
    return json.append(",\"ttl\":\"").append(ttl).append("\"}").toString();
  }

  private static JdbiTemplateRepository repository(Jdbi jdbi) {
    return new JdbiTemplateRepository(jdbi, EXTENSION.getObjectMapper());
  }

  /** A response as it came off the wire. */
  private record Reply(int status, java.net.http.HttpHeaders headers, String body) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new AssertionError("response body is not JSON: " + body, e);
      }
    }

    String contentType() {
      return headers.firstValue("Content-Type").orElse("");
    }
  }

  /** What a rejected request must not change: every template as listed, the existing one, the audit trail. */
  private record State(JsonNode templates, JsonNode existing, long auditRows) {}

  private static Reply send(String method, String pathAndQuery, String contentType, String body, String authorization)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + EXTENSION.getLocalPort() + pathAndQuery))
            .timeout(Duration.ofSeconds(30))
            .header("Accept", "application/json")
            .method(
                method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    return new Reply(response.statusCode(), response.headers(), response.body());
  }

  private static JsonNode listAll() throws Exception {
    Reply reply = send("GET", "/v1/templates?limit=1000", null, null, BEARER);
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    JsonNode items = reply.json().get("items");
    assertThat(items.isArray()).isTrue();
    return items;
  }

  private static State state() throws Exception {
    Reply existing = send("GET", "/v1/templates/" + EXISTING, null, null, BEARER);
    assertThat(existing.status()).as(existing.body()).isEqualTo(200);
    return new State(listAll(), existing.json(), count("SELECT count(*) FROM refresher.refresher_audit"));
  }

  private static void assertUnchanged(State before) throws Exception {
    State now = state();
    assertThat(now.templates()).as("every template as listed").isEqualTo(before.templates());
    assertThat(now.existing()).as("the existing template, timestamps included").isEqualTo(before.existing());
    assertThat(now.existing().get("pattern").asText()).isEqualTo("existing:product:{id}");
    assertThat(now.auditRows()).as("no audit row written").isEqualTo(before.auditRows());
  }

  private static void assertUnknown(String name) throws Exception {
    Reply reply = send("GET", "/v1/templates/" + URLEncoder.encode(name, StandardCharsets.UTF_8), null, null, BEARER);
    assertRejected(reply, 404, "name");
    assertThat(count("SELECT count(*) FROM refresher.refresher_template WHERE name = '" + name.replace("'", "''") + "'"))
        .isZero();
  }

  private static void assertRejected(Reply reply, int status, String field) {
    assertThat(reply.status()).as("status; body: %s", reply.body()).isEqualTo(status);
    assertThat(reply.contentType()).as("Content-Type of the error").startsWith("application/json");
    JsonNode body = reply.json();
    assertThat(body.path("code").asInt()).as("code in the body").isEqualTo(status);
    assertThat(body.path("message").asText()).as("message").isNotBlank();
    assertThat(rules(reply, field)).as("a rule for field '%s' in %s", field, reply.body()).isNotEmpty().allSatisfy(
        rule -> assertThat(rule).isNotBlank());
  }

  private static List<String> rules(Reply reply, String field) {
    List<String> rules = new ArrayList<>();
    reply.json().path("errors").forEach(error -> {
      if (field.equals(error.path("field").asText())) {
        rules.add(error.path("rule").asText());
      }
    });
    return rules;
  }

  private static List<String> namesOf(JsonNode items) {
    List<String> names = new ArrayList<>();
    items.forEach(item -> names.add(item.get("name").asText()));
    return names;
  }

  private static Instant instant(JsonNode node, String field) {
    assertThat(node.get(field).isTextual()).as("%s is an ISO-8601 string in %s", field, node).isTrue();
    return Instant.parse(node.get(field).asText());
  }

  private static long count(String sql) {
    return APP.database().queryLong(sql);
  }

  private static List<String> strings(String sql) throws SQLException {
    List<String> values = new ArrayList<>();
    try (Connection connection = APP.database().connect();
        PreparedStatement statement = connection.prepareStatement(sql);
        ResultSet rs = statement.executeQuery()) {
      while (rs.next()) {
        values.add(rs.getString(1));
      }
    }
    return values;
  }
}
