package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.wiring.ServiceWiring;
import io.refresher.config.RefresherConfiguration;
import io.refresher.persistence.JdbiTemplateRepository;
import io.refresher.testing.RawHttp;
import io.refresher.testing.TestApp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * The edges of the admin API contract, over a raw socket so that every byte reaches the server as
 * written: paths as-is ({@code curl --path-as-is}), malformed request lines, odd methods, oversized
 * URIs, headers and bodies, text PostgreSQL cannot hold. Every refusal, whether the application or
 * Jetty itself makes it, answers with the JSON error shape, and leaves the registry as it was.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ApiEdgesIT {

  private static final TestApp APP =
      TestApp.create(
          "api_edges",
          List.of(
              "CREATE TABLE test_product (id bigint primary key, name text, price numeric, category text, tags text[])",
              "INSERT INTO test_product VALUES (1, 'Laptop', 999.90, 'electronics', ARRAY['portable', 'computer'])"));
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String VALID_BODY = "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT5M\"}";
  private static final String EXISTING = "edges:existing";

  @BeforeAll
  static void registerExistingKey() throws Exception {
    RawHttp.Reply created = send("PUT", "/v1/keys/" + EXISTING, "application/json", VALID_BODY, true);
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    RawHttp.Reply template =
        send(
            "PUT",
            "/v1/templates/edges-products",
            "application/json",
            "{\"pattern\":\"edges-product:{id}\",\"source\":\"product-by-id\",\"ttl\":\"PT5M\"}",
            true);
    assertThat(template.status()).as(template.body()).isEqualTo(201);
  }

  // ---------------------------------------------------------------------------------------------
  // Text PostgreSQL cannot hold (U+0000, unpaired surrogates): refused up front, naming the field,
  // never "database unavailable, retry later".

  static Stream<Arguments> unstorableText() {
    return Stream.of(
        Arguments.of("GET", "/v1/keys?after=%00", null, 422, "after"),
        Arguments.of("GET", "/v1/keys?prefix=a%00", null, 422, "prefix"),
        Arguments.of("GET", "/v1/templates?after=%00", null, 422, "after"),
        Arguments.of("GET", "/v1/audit?window=soon", null, 422, "window"),
        Arguments.of("GET", "/v1/audit?window=PT2H", null, 422, "window"),
        Arguments.of("GET", "/v1/audit?window=PT1S", null, 422, "window"),
        // Jetty refuses an encoded NUL in a path before the API sees it; the answer is still JSON.
        Arguments.of("GET", "/v1/keys/nul%00key", null, 400, null),
        Arguments.of("PUT", "/v1/keys/nul%00key", VALID_BODY, 400, null),
        Arguments.of("DELETE", "/v1/keys/nul%00key", null, 400, null),
        Arguments.of("POST", "/v1/keys/nul%00key/refresh", "", 400, null),
        Arguments.of("GET", "/v1/templates/nul%00name", null, 400, null),
        Arguments.of("DELETE", "/v1/templates/nul%00name", null, 400, null),
        Arguments.of(
            "PUT",
            "/v1/keys/edges:nul-param",
            "{\"source\":\"products-in-category\",\"params\":{\"category\":\"a\\u0000b\",\"min_price\":1},\"ttl\":\"PT5M\"}",
            422,
            "params.category"),
        Arguments.of(
            "PUT",
            "/v1/keys/edges:surrogate-param",
            "{\"source\":\"products-in-category\",\"params\":{\"category\":\"a\\ud800b\",\"min_price\":1},\"ttl\":\"PT5M\"}",
            422,
            "params.category"),
        Arguments.of(
            "PUT",
            "/v1/keys/edges:nul-long-param",
            "{\"source\":\"product-by-id\",\"params\":{\"id\":\"1\\u0000\"},\"ttl\":\"PT5M\"}",
            422,
            "params.id"),
        Arguments.of(
            "PUT",
            "/v1/templates/edges-nul",
            "{\"pattern\":\"edges-cat:{category}\",\"source\":\"products-in-category\",\"params\":{\"min_price\":\"1\\u0000\"},\"ttl\":\"PT5M\"}",
            422,
            "params.min_price"),
        // A surrogate's bytes are not UTF-8: refused by Jetty as a bad encoding, as JSON.
        Arguments.of("PUT", "/v1/keys/edges:surrogate%ED%A0%80key", VALID_BODY, 400, null),
        Arguments.of(
            "PUT",
            "/v1/templates/edges-surrogate",
            "{\"pattern\":\"edges-sur:{min_price}\",\"source\":\"products-in-category\",\"params\":{\"category\":\"\\udc00\"},\"ttl\":\"PT5M\"}",
            422,
            "params.category"),
        Arguments.of(
            "PUT", "/v1/keys/edges:nul-ttl", "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT1S\\u0000\"}", 400, "ttl"),
        Arguments.of(
            "PUT", "/v1/templates/edges-nul-ttl",
            "{\"pattern\":\"edges-nul:{id}\",\"source\":\"product-by-id\",\"ttl\":\" PT1S\"}",
            400,
            "ttl"));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("unstorableText")
  void unstorableText_refusedNamingFieldAndNothingChanged(String method, String path, String body, int status, String field)
      throws Exception {
    Registry before = registry();

    RawHttp.Reply reply = send(method, path, body == null ? null : "application/json", body, true);

    assertJsonError(reply, status, field);
    assertThat(reply.header("Retry-After")).as("not a transient failure").isEmpty();
    assertThat(registry()).isEqualTo(before);
  }

  // ---------------------------------------------------------------------------------------------
  // Paths as-is.

  static Stream<Arguments> dotKeys() {
    return Stream.of(
        Arguments.of("/v1/keys/.", 422, "key"),
        Arguments.of("/v1/keys/..", 422, "key"),
        Arguments.of("/v1/keys/%2E", 422, "key"),
        Arguments.of("/v1/keys/%2E%2E", 422, "key"),
        Arguments.of("/v1/keys/%2e%2e", 422, "key"));
  }

  @ParameterizedTest(name = "PUT {0}")
  @MethodSource("dotKeys")
  void put_dotSegmentAsKey_refusedAsJsonAndNothingRegistered(String path, int status, String field) throws Exception {
    Registry before = registry();

    RawHttp.Reply reply = send("PUT", path, "application/json", VALID_BODY, true);

    assertJsonError(reply, status, field);
    assertThat(registry()).isEqualTo(before);
    assertThat(APP.get(".")).isNull();
    assertThat(APP.get("..")).isNull();
  }

  // ---------------------------------------------------------------------------------------------
  // JSON bodies.

  static Stream<Arguments> strictBodies() {
    return Stream.of(
        Arguments.of("duplicate top-level field", "{\"source\":\"counted\",\"source\":\"product-by-id\",\"params\":{},\"ttl\":\"PT5M\"}", "source"),
        Arguments.of("duplicate ttl", "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT5M\",\"ttl\":\"PT6M\"}", "ttl"),
        Arguments.of(
            "duplicate parameter",
            "{\"source\":\"product-by-id\",\"params\":{\"id\":1,\"id\":2},\"ttl\":\"PT5M\"}",
            "params.id"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("strictBodies")
  void put_duplicateField_400NamingItAndNothingChanged(String rule, String body, String field) throws Exception {
    Registry before = registry();

    RawHttp.Reply reply = send("PUT", "/v1/keys/edges:duplicate", "application/json", body, true);

    assertJsonError(reply, 400, field);
    assertThat(registry()).isEqualTo(before);
  }

  static Stream<String> notJsonContentTypes() {
    return Stream.of(
        "application/merge-patch+json",
        "application/json;;;",
        "application/json; charset=iso-8859-1",
        "application/jsonx",
        "text/json");
  }

  @ParameterizedTest(name = "Content-Type: {0}")
  @MethodSource("notJsonContentTypes")
  void put_contentTypeOtherThanJson_415AndNothingChanged(String contentType) throws Exception {
    Registry before = registry();

    RawHttp.Reply key = send("PUT", "/v1/keys/edges:content-type", contentType, VALID_BODY, true);
    RawHttp.Reply template =
        send(
            "PUT",
            "/v1/templates/edges-content-type",
            contentType,
            "{\"pattern\":\"edges-ct:{id}\",\"source\":\"product-by-id\",\"ttl\":\"PT5M\"}",
            true);

    assertJsonError(key, 415, "Content-Type");
    assertJsonError(template, 415, "Content-Type");
    assertThat(registry()).isEqualTo(before);
  }

  @ParameterizedTest(name = "Content-Type: {0}")
  @MethodSource("jsonContentTypes")
  void put_jsonContentTypeVariants_accepted(String contentType) throws Exception {
    RawHttp.Reply reply = send("PUT", "/v1/keys/edges:json-ok", contentType, VALID_BODY, true);

    assertThat(reply.status()).as(reply.body()).isIn(200, 201);
  }

  static Stream<String> jsonContentTypes() {
    return Stream.of("application/json", "application/json; charset=utf-8", "Application/JSON;charset=\"UTF-8\"");
  }

  @Test
  void put_bodyOverTheCapWithContentLength_413JsonBeforeTheBodyIsSent() throws Exception {
    Registry before = registry();
    long tenMegabytes = 10L * 1024 * 1024;
    String head =
        "PUT /v1/keys/edges:huge HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + TestApp.TOKEN
            + "\r\nContent-Type: application/json\r\nContent-Length: " + tenMegabytes + "\r\n\r\n";

    // Nothing of the body is sent: the answer must come without it.
    RawHttp.Reply reply = raw().exchange(head.getBytes(StandardCharsets.US_ASCII), null, null);

    assertJsonError(reply, 413, "body");
    assertThat(registry()).isEqualTo(before);
  }

  @Test
  void put_chunkedBodyOverTheCap_413Json() throws Exception {
    Registry before = registry();
    String head =
        "PUT /v1/keys/edges:huge-chunked HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + TestApp.TOKEN
            + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";

    RawHttp.Reply reply =
        raw().exchange(head.getBytes(StandardCharsets.US_ASCII), RawHttp.chunked(10L * 1024 * 1024, (byte) ' '), null);

    assertJsonError(reply, 413, "body");
    assertThat(registry()).isEqualTo(before);
  }

  // ---------------------------------------------------------------------------------------------
  // Requests Jetty refuses before the application sees them: the same JSON shape.

  static Stream<Arguments> serverLevelRejections() {
    String longUri = "/v1/keys/" + "u".repeat(20_000);
    String bigHeader = "X-Big: " + "h".repeat(20_000) + "\r\n";
    return Stream.of(
        Arguments.of("garbage request line", "GARBAGE\r\n\r\n", 400),
        Arguments.of("bad header line", "GET /v1/keys HTTP/1.1\r\nHost: localhost\r\nNo colon here\r\n\r\n", 400),
        Arguments.of("no Host", "GET /v1/keys HTTP/1.1\r\n\r\n", 400),
        Arguments.of("URI too long", "GET " + longUri + " HTTP/1.1\r\nHost: localhost\r\n\r\n", 414),
        Arguments.of("header too large", "GET /v1/keys HTTP/1.1\r\nHost: localhost\r\n" + bigHeader + "\r\n", 431),
        // A version Jetty knows but does not serve over HTTP/1: 505.
        Arguments.of("HTTP/3.0", "GET /v1/keys HTTP/3.0\r\nHost: localhost\r\n\r\n", 505),
        Arguments.of("HTTP/0.9 spelled out", "GET /v1/keys HTTP/0.9\r\nHost: localhost\r\n\r\n", 505),
        // Any other token where the version goes, or none: the request line is malformed (RFC 9112,
        // section 3: 400). Jetty's parser cannot tell HTTP/2.5 from a word after a space in the
        // target, and answered all of these 505 (found by AdminApiFuzzIT).
        Arguments.of("unknown HTTP version", "GET /v1/keys HTTP/0.8\r\nHost: localhost\r\n\r\n", 400),
        Arguments.of("HTTP/2.5", "GET /v1/keys HTTP/2.5\r\nHost: localhost\r\n\r\n", 400),
        Arguments.of("version with two digits", "GET /v1/keys HTTP/1.10\r\nHost: localhost\r\n\r\n", 400),
        Arguments.of("space inside the target, then a word", "GET /v1/keys/a b\r\nHost: localhost\r\n\r\n", 400),
        Arguments.of("bare LF inside the target", "GET /v1/keys/a\nb HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
        Arguments.of("no version at all", "GET /v1/keys\r\nHost: localhost\r\n\r\n", 400),
        // Refused 400 by the parser itself: pinned beside them.
        Arguments.of("space inside the target", "GET /v1/keys/a b HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
        Arguments.of("two spaces inside the target", "GET /v1/keys/a b c HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
        Arguments.of("bare CR inside the target", "GET /v1/keys/a\rb HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
        Arguments.of("tab inside the target", "GET /v1/keys/a\tb HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
        Arguments.of("bad percent-encoding", "GET /v1/keys/%zz HTTP/1.1\r\nHost: localhost\r\n\r\n", 400));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("serverLevelRejections")
  void serverLevelRejection_answersJsonErrorShape(String what, String request, int status) throws Exception {
    Registry before = registry();

    RawHttp.Reply reply = raw().exchange(request);

    assertJsonError(reply, status, null);
    assertThat(reply.body()).doesNotContain("<html").doesNotContain("<h2>");
    assertThat(registry()).isEqualTo(before);
  }

  @Test
  void requestLineWithALineBreakInsideTheTarget_400SaysHowToWriteTheTarget() throws Exception {
    RawHttp.Reply reply = raw().exchange("GET /v1/keys/line\nbreak HTTP/1.1\r\nHost: localhost\r\n\r\n");

    assertJsonError(reply, 400, null);
    assertThat(reply.statusLine()).startsWith("HTTP/1.1 400");
    assertThat(json(reply).path("message").asText()).contains("METHOD target HTTP/1.1", "percent-encode");
  }

  // ---------------------------------------------------------------------------------------------
  // Methods.

  @Test
  void tokenInTheUrl_refusedAndNothingChanged_evenWhenItIsTheRightOne() throws Exception {
    Registry before = registry();

    RawHttp.Reply list = send("GET", "/v1/keys?access_token=" + TestApp.TOKEN, null, null, false);
    RawHttp.Reply put =
        send("PUT", "/v1/keys/edges:token-in-url?access_token=" + TestApp.TOKEN, "application/json", VALID_BODY, false);

    assertJsonError(list, 422, "access_token");
    assertJsonError(put, 422, "access_token");
    assertThat(registry()).isEqualTo(before);
  }

  @Test
  void options_withoutToken_401Json() throws Exception {
    RawHttp.Reply keys = send("OPTIONS", "/v1/keys", null, null, false);
    RawHttp.Reply key = send("OPTIONS", "/v1/keys/" + EXISTING, null, null, false);
    RawHttp.Reply templates = send("OPTIONS", "/v1/templates", null, null, false);

    assertJsonError(keys, 401, "Authorization");
    assertJsonError(key, 401, "Authorization");
    assertJsonError(templates, 401, "Authorization");
    assertThat(keys.header("Allow")).isEmpty();
  }

  @Test
  void options_withToken_listsTheAllowedMethods() throws Exception {
    RawHttp.Reply reply = send("OPTIONS", "/v1/keys/" + EXISTING, null, null, true);

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(reply.header("Allow")).hasValueSatisfying(allow -> assertThat(allow).contains("GET", "PUT", "DELETE"));
  }

  // PUT took the key as {key: .*} and GET and DELETE as {key: .+}: two resources to Jersey, so the
  // Allow of an OPTIONS or of a 405 named only the methods of one of them (found by AdminApiFuzzIT).
  @Test
  void wrongMethod_onAKey_405AllowsEveryMethodTheKeyTakes() throws Exception {
    RawHttp.Reply reply = send("PATCH", "/v1/keys/" + EXISTING, "application/json", VALID_BODY, true);

    assertJsonError(reply, 405, null);
    assertThat(reply.header("Allow")).hasValueSatisfying(allow -> assertThat(allow).contains("GET", "PUT", "DELETE"));
  }

  // Jetty strips a path parameter before the API sees the path: /v1/keys/;x was the listing (200),
  // where a raw ';' in a key path is refused (found by AdminApiFuzzIT).
  static Stream<Arguments> pathParameterAfterTheCollection() {
    return Stream.of(
        Arguments.of("/v1/keys/;x", "key"),
        Arguments.of("/v1/keys/;refresh", "key"),
        Arguments.of("/v1/templates/;x", "name"));
  }

  @ParameterizedTest(name = "GET {0}")
  @MethodSource("pathParameterAfterTheCollection")
  void get_rawSemicolonWhereTheKeyStarts_422NotTheListing(String path, String field) throws Exception {
    RawHttp.Reply reply = send("GET", path, null, null, true);

    assertJsonError(reply, 422, field);
  }

  @Test
  void put_emptyKey_422NamingTheKey() throws Exception {
    Registry before = registry();

    RawHttp.Reply reply = send("PUT", "/v1/keys/", "application/json", VALID_BODY, true);

    assertJsonError(reply, 422, "key");
    assertThat(registry()).isEqualTo(before);
  }

  @Test
  void unknownPathAndWrongMethod_withoutToken_401JsonNotWhatExists() throws Exception {
    RawHttp.Reply unknown = send("GET", "/v1/nothing-here", null, null, false);
    RawHttp.Reply wrongMethod = send("PATCH", "/v1/keys/" + EXISTING, "application/json", "{}", false);

    assertJsonError(unknown, 401, "Authorization");
    assertJsonError(wrongMethod, 401, "Authorization");
    assertThat(wrongMethod.header("Allow")).isEmpty();
  }

  @Test
  void connect_405JsonAndTheConnectionIsClosed() throws Exception {
    String request = "CONNECT * HTTP/1.1\r\nHost: localhost\r\n\r\n";

    // Jetty's idle timeout is 30 s: a connection still open after 10 s was held.
    RawHttp.Reply reply = raw().exchange(request.getBytes(StandardCharsets.US_ASCII), null, Duration.ofSeconds(10));

    assertJsonError(reply, 405, null);
    assertThat(reply.closedByServer()).as("the server closed the connection after its 405").isTrue();
  }

  @Test
  void connect_toAuthority_405JsonAndTheConnectionIsClosed() throws Exception {
    String request = "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n";

    RawHttp.Reply reply = raw().exchange(request.getBytes(StandardCharsets.US_ASCII), null, Duration.ofSeconds(10));

    assertJsonError(reply, 405, null);
    assertThat(reply.closedByServer()).as("the server closed the connection after its 405").isTrue();
  }

  // ---------------------------------------------------------------------------------------------
  // Template reload: a row the service cannot read is skipped, naming it, and the others load.

  @Test
  void templateReload_badRowInTheTable_skippedWithWarningAndOtherTemplatesStillLoad() throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger(JdbiTemplateRepository.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try {
      // Written by hand (or by a newer version): the service never stores such a pattern.
      APP.database()
          .execute(
              "INSERT INTO refresher.refresher_template (name, pattern, source, params, ttl_ms, created_at, updated_at) "
                  + "VALUES ('edges-broken', 'broken:{', 'product-by-id', '{}', 60000, now(), now())",
              "INSERT INTO refresher.refresher_template (name, pattern, source, params, ttl_ms, created_at, updated_at) "
                  + "VALUES ('edges-by-hand', 'edges-hand:{id}', 'product-by-id', '{}', 60000, now(), now())");

      await("the template written by hand is loaded by the periodic reload")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                RawHttp.Reply reply = send("GET", "/v1/keys/edges-hand:1", null, null, true);
                assertThat(reply.status()).as(reply.body()).isEqualTo(200);
                assertThat(json(reply).path("template").asText()).isEqualTo("edges-by-hand");
              });
      assertThat(warnings(logged))
          .as("a WARN naming the unreadable template")
          .anySatisfy(message -> assertThat(message).contains("edges-broken"));
    } finally {
      logger.detachAppender(logged);
      APP.database()
          .execute("DELETE FROM refresher.refresher_template WHERE name IN ('edges-broken', 'edges-by-hand')");
    }
  }

  @Test
  void templateReload_tableCannotBeRead_warnsWithTheCauseThenLogsTheRecovery() throws Exception {
    // the composition root's package: the reload is logged by the wiring class that schedules it
    Logger logger = (Logger) LoggerFactory.getLogger(ServiceWiring.class.getPackageName());
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try {
      try {
        APP.database().execute("ALTER TABLE refresher.refresher_template RENAME TO refresher_template_away");

        await("a WARN saying the periodic reload fails, and why")
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> assertThat(warnings(logged))
                    .anySatisfy(message -> assertThat(message).contains("template reload failed", "refresher_template")));
      } finally {
        APP.database().execute("ALTER TABLE refresher.refresher_template_away RENAME TO refresher_template");
      }
      await("an INFO saying it works again")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> assertThat(messages(logged, Level.INFO))
                  .anySatisfy(message -> assertThat(message).contains("template reload works again")));
    } finally {
      logger.detachAppender(logged);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers.

  /** What a refused request must leave as it was: registrations and templates. */
  private record Registry(JsonNode keys, JsonNode templates) {}

  private static Registry registry() throws Exception {
    RawHttp.Reply keys = send("GET", "/v1/keys?limit=1000", null, null, true);
    assertThat(keys.status()).as(keys.body()).isEqualTo(200);
    RawHttp.Reply templates = send("GET", "/v1/templates?limit=1000", null, null, true);
    assertThat(templates.status()).as(templates.body()).isEqualTo(200);
    return new Registry(json(keys).get("items"), json(templates).get("items"));
  }

  private static RawHttp raw() {
    return new RawHttp(EXTENSION.getLocalPort());
  }

  private static RawHttp.Reply send(String method, String path, String contentType, String body, boolean authorized)
      throws IOException {
    StringBuilder request = new StringBuilder();
    request.append(method).append(' ').append(path).append(" HTTP/1.1\r\n");
    request.append("Host: localhost\r\n");
    request.append("Accept: application/json\r\n");
    request.append("Connection: close\r\n");
    if (authorized) {
      request.append("Authorization: Bearer ").append(TestApp.TOKEN).append("\r\n");
    }
    byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    if (contentType != null) {
      request.append("Content-Type: ").append(contentType).append("\r\n");
    }
    if (body != null) {
      request.append("Content-Length: ").append(bytes.length).append("\r\n");
    }
    request.append("\r\n");
    byte[] head = request.toString().getBytes(StandardCharsets.UTF_8);
    byte[] all = new byte[head.length + bytes.length];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(bytes, 0, all, head.length, bytes.length);
    return raw().exchange(all, null, null);
  }

  private static JsonNode json(RawHttp.Reply reply) {
    try {
      return JSON.readTree(reply.body());
    } catch (IOException e) {
      throw new AssertionError("response body is not JSON: " + reply.body(), e);
    }
  }

  /** Status, {@code Content-Type: application/json}, and the error shape, naming {@code field} if given. */
  private static void assertJsonError(RawHttp.Reply reply, int status, String field) {
    assertThat(reply.status()).as("status; %s; body: %s", reply.headers(), reply.body()).isEqualTo(status);
    assertThat(reply.contentType()).as("Content-Type; body: %s", reply.body()).startsWith("application/json");
    JsonNode body = json(reply);
    assertThat(body.path("code").asInt()).as("code in %s", reply.body()).isEqualTo(status);
    assertThat(body.path("message").asText()).as("message in %s", reply.body()).isNotBlank();
    if (field != null) {
      List<String> fields = new ArrayList<>();
      body.path("errors").forEach(error -> fields.add(error.path("field").asText()));
      assertThat(fields).as("fields named in %s", reply.body()).contains(field);
      body.path("errors").forEach(error -> assertThat(error.path("rule").asText()).isNotBlank());
    }
  }

  private static List<String> warnings(ListAppender<ILoggingEvent> logged) {
    return messages(logged, Level.WARN);
  }

  /** What was logged at {@code level} or above. */
  private static List<String> messages(ListAppender<ILoggingEvent> logged, Level level) {
    List<String> messages = new ArrayList<>();
    synchronized (logged) {
      for (ILoggingEvent event : logged.list) {
        if (event.getLevel().isGreaterOrEqual(level)) {
          messages.add(event.getFormattedMessage());
        }
      }
    }
    return messages;
  }
}
