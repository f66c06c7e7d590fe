package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.client.protocol.CacheKeys;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.TestApp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every rule of the admin API, against the real service on real Redis and PostgreSQL: each broken
 * rule answers its 4xx with a JSON body that names the offending field, and changes nothing — the
 * registry lists the same items, the attempted key stays unknown, and an existing registration that
 * a rejected request tried to replace keeps its source, params, TTL and Redis value.
 *
 * <p>Requests go out through {@link HttpClient} so that paths, headers and bodies reach the server
 * byte for byte as written here (no client-side normalisation or re-encoding).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class AdminApiValidationIT {

  private static final TestApp APP =
      TestApp.create(
          "admin_api_validation",
          List.of(
              "CREATE TABLE test_product (id bigint primary key, name text, price numeric, category text, tags text[])",
              "CREATE TABLE test_switch (id bigint primary key, ok int)",
              "INSERT INTO test_product VALUES (1, 'Laptop', 999.90, 'electronics', ARRAY['portable', 'computer'])",
              "INSERT INTO test_switch VALUES (1, 1)"));
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** A registration that rejected requests try to replace; its TTL is long, so nothing refreshes it. */
  private static final String EXISTING = "existing:product:1";

  private static final String EXISTING_BODY =
      "{\"source\":\"product-by-id\",\"params\":{\"id\":1},\"ttl\":\"PT10M\"}";
  private static final String VALID_BODY = "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT5M\"}";
  private static final String BEARER = "Bearer " + TestApp.TOKEN;

  @BeforeAll
  static void registerExistingKey() throws Exception {
    Reply created = send("PUT", "/v1/keys/" + TestApp.pathOf(EXISTING), "application/json", EXISTING_BODY, BEARER);
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.json().at("/refresh/outcome").asText()).isEqualTo("refreshed");
    assertThat(APP.get(EXISTING)).contains("\"Laptop\"");
  }


  // ---------------------------------------------------------------------------------------------
  // Body rules: tried as a new registration and as a replacement of an existing one.

  static Stream<Arguments> invalidBodies() {
    return Stream.of(
        Arguments.of("unknown source", "{\"source\":\"no-such-source\",\"params\":{},\"ttl\":\"PT5M\"}", 422, "source"),
        Arguments.of(
            "unknown policy",
            "{\"source\":\"product-by-id\",\"params\":{\"id\":1},\"ttl\":\"PT5M\",\"policy\":\"sometimes\"}",
            422,
            "policy"),
        Arguments.of(
            "policy in capitals",
            "{\"source\":\"product-by-id\",\"params\":{\"id\":1},\"ttl\":\"PT5M\",\"policy\":\"HOT\"}",
            422,
            "policy"),
        Arguments.of("missing source", "{\"params\":{\"id\":1},\"ttl\":\"PT5M\"}", 422, "source"),
        Arguments.of("blank source", "{\"source\":\" \",\"params\":{\"id\":1},\"ttl\":\"PT5M\"}", 422, "source"),
        Arguments.of("missing parameter", "{\"source\":\"product-by-id\",\"params\":{},\"ttl\":\"PT5M\"}", 422, "params.id"),
        Arguments.of("params omitted", "{\"source\":\"product-by-id\",\"ttl\":\"PT5M\"}", 422, "params.id"),
        Arguments.of(
            "one of two parameters missing",
            "{\"source\":\"products-in-category\",\"params\":{\"category\":\"books\"},\"ttl\":\"PT5M\"}",
            422,
            "params.min_price"),
        Arguments.of(
            "extra parameter",
            "{\"source\":\"product-by-id\",\"params\":{\"id\":1,\"colour\":\"red\"},\"ttl\":\"PT5M\"}",
            422,
            "params.colour"),
        Arguments.of(
            "parameter for a source that takes none",
            "{\"source\":\"counted\",\"params\":{\"id\":1},\"ttl\":\"PT5M\"}",
            422,
            "params.id"),
        Arguments.of(
            "long parameter given text",
            "{\"source\":\"product-by-id\",\"params\":{\"id\":\"abc\"},\"ttl\":\"PT5M\"}",
            422,
            "params.id"),
        Arguments.of(
            "long parameter given a fraction",
            "{\"source\":\"product-by-id\",\"params\":{\"id\":1.5},\"ttl\":\"PT5M\"}",
            422,
            "params.id"),
        Arguments.of(
            "long parameter given an object",
            "{\"source\":\"product-by-id\",\"params\":{\"id\":{\"value\":1}},\"ttl\":\"PT5M\"}",
            422,
            "params.id"),
        Arguments.of(
            "long parameter given an array",
            "{\"source\":\"product-by-id\",\"params\":{\"id\":[1]},\"ttl\":\"PT5M\"}",
            422,
            "params.id"),
        Arguments.of(
            "long parameter given null",
            "{\"source\":\"product-by-id\",\"params\":{\"id\":null},\"ttl\":\"PT5M\"}",
            422,
            "params.id"),
        Arguments.of(
            "double parameter given text",
            "{\"source\":\"products-in-category\",\"params\":{\"category\":\"books\",\"min_price\":\"cheap\"},\"ttl\":\"PT5M\"}",
            422,
            "params.min_price"),
        Arguments.of(
            "params not an object",
            "{\"source\":\"product-by-id\",\"params\":[1],\"ttl\":\"PT5M\"}",
            400,
            "params"),
        Arguments.of("ttl below 1 s", "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT0.5S\"}", 422, "ttl"),
        Arguments.of("ttl zero", "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT0S\"}", 422, "ttl"),
        Arguments.of("ttl negative", "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT-5M\"}", 422, "ttl"),
        Arguments.of("ttl above 30 days", "{\"source\":\"counted\",\"params\":{},\"ttl\":\"P31D\"}", 422, "ttl"),
        Arguments.of("ttl missing", "{\"source\":\"counted\",\"params\":{}}", 422, "ttl"),
        Arguments.of("ttl null", "{\"source\":\"counted\",\"params\":{},\"ttl\":null}", 422, "ttl"),
        Arguments.of("ttl malformed", "{\"source\":\"counted\",\"params\":{},\"ttl\":\"5m\"}", 400, "ttl"),
        Arguments.of("ttl an object", "{\"source\":\"counted\",\"params\":{},\"ttl\":{\"minutes\":5}}", 400, "ttl"),
        Arguments.of("malformed JSON", "{\"source\":\"counted\",\"params\":{},\"ttl\":", 400, "body"),
        Arguments.of("not JSON at all", "source=counted&ttl=PT5M", 400, "body"),
        Arguments.of("empty body", "", 422, "body"),
        Arguments.of("JSON null", "null", 422, "body"),
        Arguments.of("JSON array", "[{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT5M\"}]", 400, "body"),
        Arguments.of("JSON string", "\"counted\"", 400, "body"),
        Arguments.of(
            "unknown top-level field",
            "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT5M\",\"refreshEvery\":\"PT1M\"}",
            400,
            "refreshEvery"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidBodies")
  void put_invalidBodyForNewKey_rejectedWithFieldAndNothingRegistered(
      String rule, String body, int status, String field) throws Exception {
    String key = "new:" + rule.replace(' ', '-');
    JsonNode before = listAll();

    Reply reply = send("PUT", "/v1/keys/" + TestApp.pathOf(key), "application/json", body, BEARER);

    assertRejected(reply, status, field);
    assertNothingChanged(before);
    assertUnknown(key);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidBodies")
  void put_invalidBodyReplacingExistingKey_rejectedWithFieldAndRegistrationAndValueUnchanged(
      String rule, String body, int status, String field) throws Exception {
    JsonNode before = listAll();
    Existing existing = existingState();

    Reply reply = send("PUT", "/v1/keys/" + TestApp.pathOf(EXISTING), "application/json", body, BEARER);

    assertRejected(reply, status, field);
    assertNothingChanged(before);
    assertExistingUnchanged(existing);
  }

  @Test
  void put_severalRulesBroken_everyBrokenFieldNamedAndNothingRegistered() throws Exception {
    String key = "new:several-rules";
    JsonNode before = listAll();

    Reply reply =
        send(
            "PUT",
            "/v1/keys/" + TestApp.pathOf(key),
            "application/json",
            "{\"source\":\"no-such-source\",\"params\":{},\"ttl\":\"PT0.1S\"}",
            BEARER);

    assertRejected(reply, 422, "source");
    assertRejected(reply, 422, "ttl");
    assertNothingChanged(before);
    assertUnknown(key);
  }

  @Test
  void put_rawSemicolonInKeyPath_422NamingKeyAndNeitherKeyRegistered() throws Exception {
    // The server would strip ";b" as a path parameter and act on the key "a" instead.
    JsonNode before = listAll();

    Reply reply = send("PUT", "/v1/keys/semi:a;b", "application/json", VALID_BODY, BEARER);

    assertRejected(reply, 422, "key");
    assertNothingChanged(before);
    assertUnknown("semi:a");
    assertUnknown("semi:a;b");
  }

  @Test
  void put_textPlainContentType_unsupportedMediaType415NamingContentType() throws Exception {
    String key = "new:text-plain";
    JsonNode before = listAll();

    Reply reply = send("PUT", "/v1/keys/" + TestApp.pathOf(key), "text/plain", VALID_BODY, BEARER);

    assertRejected(reply, 415, "Content-Type");
    assertNothingChanged(before);
    assertUnknown(key);
  }

  @Test
  void put_textPlainContentTypeReplacingExistingKey_415AndRegistrationUnchanged() throws Exception {
    JsonNode before = listAll();
    Existing existing = existingState();

    Reply reply =
        send(
            "PUT",
            "/v1/keys/" + TestApp.pathOf(EXISTING),
            "text/plain",
            "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT1M\"}",
            BEARER);

    assertRejected(reply, 415, "Content-Type");
    assertNothingChanged(before);
    assertExistingUnchanged(existing);
  }

  // ---------------------------------------------------------------------------------------------
  // Key rules: a valid body under an invalid key.

  static Stream<Arguments> invalidKeys() {
    String ascii513 = "k".repeat(513);
    String euro200 = "€".repeat(200); // 200 characters, 600 bytes in UTF-8
    return Stream.of(
        Arguments.of("513 ASCII bytes", ascii513, TestApp.pathOf(ascii513)),
        Arguments.of("200 multi-byte chars, 600 bytes", euro200, TestApp.pathOf(euro200)),
        Arguments.of("reserved prefix", "refresher:mine", TestApp.pathOf("refresher:mine")),
        Arguments.of("reserved prefix, nothing after it", "refresher:", TestApp.pathOf("refresher:")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidKeys")
  void put_invalidKey_422NamingKeyAndNothingRegistered(String rule, String key, String encodedKey)
      throws Exception {
    assertThat(key.getBytes(StandardCharsets.UTF_8).length > 512 || key.startsWith("refresher:"))
        .as("the case really breaks a key rule")
        .isTrue();
    JsonNode before = listAll();

    Reply reply = send("PUT", "/v1/keys/" + encodedKey, "application/json", VALID_BODY, BEARER);

    assertRejected(reply, 422, "key");
    assertNothingChanged(before);
    Reply get = send("GET", "/v1/keys/" + encodedKey, null, null, BEARER);
    assertRejected(get, 404, "key");
    assertThat(APP.get(key)).as("nothing written to Redis under the rejected key").isNull();
  }

  static Stream<Arguments> keysWithControlCharacters() {
    return Stream.of(
        Arguments.of("U+0001", "bad\u0001key", "bad%01key"),
        Arguments.of("U+001F", "bad\u001fkey", "bad%1Fkey"),
        Arguments.of("DEL", "bad\u007fkey", "bad%7Fkey"),
        Arguments.of("newline", "bad\nkey", "bad%0Akey"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("keysWithControlCharacters")
  void put_keyWithControlCharacter_422JsonNamingKeyAndNothingRegistered(String character, String key, String encodedKey)
      throws Exception {
    JsonNode before = listAll();

    Reply reply = send("PUT", "/v1/keys/" + encodedKey, "application/json", VALID_BODY, BEARER);

    // Whatever answers, nothing may have been registered or written.
    assertNothingChanged(before);
    assertThat(APP.get(key)).as("nothing written to Redis under the rejected key").isNull();
    assertRejected(reply, 422, "key");
  }

  @Test
  void put_keyOfExactly512Bytes_accepted() throws Exception {
    // The boundary of the length rule: 170 three-byte characters and two ASCII ones are 512 bytes.
    String key = "€".repeat(170) + "ok";
    assertThat(key.getBytes(StandardCharsets.UTF_8)).hasSize(512);

    Reply reply = send("PUT", "/v1/keys/" + TestApp.pathOf(key), "application/json", VALID_BODY, BEARER);

    assertThat(reply.status()).as(reply.body()).isEqualTo(201);
    assertThat(reply.json().at("/registration/key").asText()).isEqualTo(key);
    assertThat(APP.get(key)).startsWith("counted-");
  }

  @Test
  void put_reservedMetadataKeyOfExistingRegistration_422AndMetadataUntouched() throws Exception {
    String metaKey = CacheKeys.metaKey(EXISTING);
    JsonNode before = listAll();
    Existing existing = existingState();

    Reply reply = send("PUT", "/v1/keys/" + TestApp.pathOf(metaKey), "application/json", VALID_BODY, BEARER);

    assertRejected(reply, 422, "key");
    assertNothingChanged(before);
    Reply get = send("GET", "/v1/keys/" + TestApp.pathOf(metaKey), null, null, BEARER);
    assertRejected(get, 404, "key");
    assertExistingUnchanged(existing);
  }

  @ParameterizedTest(name = "PUT {0}")
  @ValueSource(strings = {"/v1/keys/", "/v1/keys"})
  void put_emptyKey_422NamingKeyAndNothingRegistered(String path) throws Exception {
    JsonNode before = listAll();

    Reply reply = send("PUT", path, "application/json", VALID_BODY, BEARER);

    assertRejected(reply, 422, "key");
    assertNothingChanged(before);
  }

  // ---------------------------------------------------------------------------------------------
  // Listing parameters.

  @ParameterizedTest(name = "limit={0}")
  @ValueSource(strings = {"0", "-1", "1001", "abc", "1.5", "99999999999"})
  void list_limitOutOfRangeOrNotANumber_422NamingLimit(String limit) throws Exception {
    JsonNode before = listAll();

    Reply reply = send("GET", "/v1/keys?limit=" + limit, null, null, BEARER);

    assertRejected(reply, 422, "limit");
    assertNothingChanged(before);
  }

  @ParameterizedTest(name = "limit={0}")
  @ValueSource(strings = {"1", "1000"})
  void list_limitAtBoundary_accepted(String limit) throws Exception {
    Reply reply = send("GET", "/v1/keys?limit=" + limit, null, null, BEARER);

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(reply.json().get("items").isArray()).isTrue();
    assertThat(reply.json().get("items").size()).isBetween(1, Integer.parseInt(limit));
  }

  // ---------------------------------------------------------------------------------------------
  // Authentication: every endpoint, every kind of bad credential.

  static Stream<Arguments> unauthenticatedRequests() {
    String basic =
        "Basic " + Base64.getEncoder().encodeToString(("admin:" + TestApp.TOKEN).getBytes(StandardCharsets.UTF_8));
    List<Arguments> cases = new ArrayList<>();
    Map<String, String> credentials = new java.util.LinkedHashMap<>();
    credentials.put("no Authorization header", null);
    credentials.put("wrong token", "Bearer wrong-token-0123456789");
    credentials.put("token with an extra character", BEARER + "x");
    credentials.put("token as Basic credentials", basic);
    credentials.put("bare token without scheme", TestApp.TOKEN);
    credentials.put("Bearer with empty token", "Bearer ");
    credentials.put("Bearer without token", "Bearer");
    String existing = "/v1/keys/" + TestApp.pathOf(EXISTING);
    String[][] endpoints = {
      {"PUT", "/v1/keys/" + TestApp.pathOf("new:unauthenticated"), VALID_BODY},
      {"PUT", existing, "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT1M\"}"},
      {"GET", existing, null},
      {"DELETE", existing, null},
      {"DELETE", existing + "?evict=true", null},
      {"GET", "/v1/keys", null},
      {"POST", existing + "/refresh", ""},
      {"GET", "/v1/sources", null},
      {"PUT", "/v1/keys", VALID_BODY},
    };
    credentials.forEach(
        (name, header) -> {
          for (String[] endpoint : endpoints) {
            cases.add(Arguments.of(name, endpoint[0], endpoint[1], endpoint[2], header));
          }
        });
    return cases.stream();
  }

  @ParameterizedTest(name = "{1} {2}: {0}")
  @MethodSource("unauthenticatedRequests")
  void anyEndpoint_badCredentials_401NamingAuthorizationAndNothingChanged(
      String credentials, String method, String path, String body, String authorization) throws Exception {
    JsonNode before = listAll();
    Existing existing = existingState();

    Reply reply = send(method, path, body == null ? null : "application/json", body, authorization);

    assertRejected(reply, 401, "Authorization");
    assertThat(reply.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
    assertThat(reply.body()).doesNotContain("Laptop").doesNotContain("SELECT");
    assertNothingChanged(before);
    assertExistingUnchanged(existing);
    assertUnknown("new:unauthenticated");
  }

  @ParameterizedTest(name = "body #{index}: [{0}]")
  @ValueSource(strings = {"{\"source\":", "[]", "", "{\"source\":\"counted\",\"ttl\":\"5m\"}"})
  void put_unauthenticatedWithMalformedBody_401NotBodyError(String body) throws Exception {
    String key = "new:unauthenticated-malformed";
    JsonNode before = listAll();

    Reply reply = send("PUT", "/v1/keys/" + TestApp.pathOf(key), "application/json", body, null);

    assertRejected(reply, 401, "Authorization");
    assertNothingChanged(before);
    assertUnknown(key);
  }

  @Test
  void put_unauthenticatedWithTextPlainContentType_401NotUnsupportedMediaType() throws Exception {
    String key = "new:unauthenticated-text-plain";
    JsonNode before = listAll();

    Reply reply = send("PUT", "/v1/keys/" + TestApp.pathOf(key), "text/plain", VALID_BODY, null);

    assertNothingChanged(before);
    assertUnknown(key);
    assertRejected(reply, 401, "Authorization");
  }

  @Test
  void put_wrongTokenWithMalformedBody_401NotBodyError() throws Exception {
    Reply reply =
        send("PUT", "/v1/keys/" + TestApp.pathOf(EXISTING), "application/json", "{not json", "Bearer nope");

    assertRejected(reply, 401, "Authorization");
  }

  @Test
  void put_unauthenticatedWithInvalidKey_401NotKeyError() throws Exception {
    Reply reply = send("PUT", "/v1/keys/refresher%3Amine", "application/json", VALID_BODY, null);

    assertRejected(reply, 401, "Authorization");
  }

  @Test
  void list_unauthenticatedWithInvalidLimit_401NotLimitError() throws Exception {
    Reply reply = send("GET", "/v1/keys?limit=abc", null, null, "Bearer nope");

    assertRejected(reply, 401, "Authorization");
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers.

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

  /** What a rejected request must not have changed about the existing registration. */
  private record Existing(JsonNode registration, String value, Map<String, String> meta) {}

  private static Reply send(String method, String pathAndQuery, String contentType, String body, String authorization)
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
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    return new Reply(response.statusCode(), response.headers(), response.body());
  }

  /** Every registration, as GET /v1/keys lists them. */
  private static JsonNode listAll() throws Exception {
    Reply reply = send("GET", "/v1/keys?limit=1000", null, null, BEARER);
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    JsonNode items = reply.json().get("items");
    assertThat(items.isArray()).isTrue();
    assertThat(items.size()).as("the listing fits one page").isLessThan(1000);
    return items;
  }

  private static Existing existingState() throws Exception {
    Reply reply = send("GET", "/v1/keys/" + TestApp.pathOf(EXISTING), null, null, BEARER);
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    JsonNode registration = reply.json().deepCopy();
    ((com.fasterxml.jackson.databind.node.ObjectNode) registration).remove("status");
    Map<String, String> meta = APP.meta(EXISTING);
    assertThat(meta).containsKeys("epoch", "token");
    String value = APP.get(EXISTING);
    assertThat(value).isNotNull();
    return new Existing(registration, value, meta);
  }

  private static void assertRejected(Reply reply, int status, String field) {
    assertThat(reply.status()).as("status; body: %s", reply.body()).isEqualTo(status);
    assertThat(reply.contentType()).as("Content-Type of the error").startsWith("application/json");
    JsonNode body = reply.json();
    assertThat(body.path("code").asInt()).as("code in the body").isEqualTo(status);
    assertThat(body.path("message").asText()).as("message").isNotBlank();
    JsonNode errors = body.path("errors");
    assertThat(errors.isArray()).as("errors array in %s", reply.body()).isTrue();
    List<JsonNode> named = new ArrayList<>();
    errors.forEach(
        error -> {
          if (field.equals(error.path("field").asText())) {
            named.add(error);
          }
        });
    assertThat(named).as("an error naming field '%s' in %s", field, reply.body()).isNotEmpty();
    assertThat(named).allSatisfy(error -> assertThat(error.path("rule").asText()).as("rule").isNotBlank());
  }

  private static void assertNothingChanged(JsonNode before) throws Exception {
    assertThat(listAll()).as("the registry lists the same items").isEqualTo(before);
  }

  private static void assertUnknown(String key) throws Exception {
    Reply reply = send("GET", "/v1/keys/" + TestApp.pathOf(key), null, null, BEARER);
    assertThat(reply.status()).as("GET of the attempted key: %s", reply.body()).isEqualTo(404);
    assertRejected(reply, 404, "key");
    assertThat(APP.get(key)).as("no value in Redis for the attempted key").isNull();
  }

  private static void assertExistingUnchanged(Existing before) throws Exception {
    Existing now = existingState();
    assertThat(now.registration().get("source").asText()).isEqualTo("product-by-id");
    assertThat(now.registration().get("params")).isEqualTo(JSON.readTree("{\"id\":1}"));
    assertThat(now.registration().get("ttl").asText()).isEqualTo("PT10M");
    assertThat(now.registration()).as("registration, timestamps included").isEqualTo(before.registration());
    assertThat(now.value()).as("Redis value").isEqualTo(before.value());
    assertThat(now.meta()).as("Redis metadata (version and times)").isEqualTo(before.meta());
  }
}
